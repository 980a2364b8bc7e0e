package io.tidemark.config;

import io.tidemark.TidemarkException;

/**
 * A setting is missing or malformed. The message is one line and names the variable (and flag) to fix;
 * the command line prints it as is, without a stack trace.
 */
public class ConfigException extends TidemarkException {
  public ConfigException(String message) {
    super(message);
  }
}
