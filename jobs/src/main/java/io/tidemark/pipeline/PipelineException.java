package io.tidemark.pipeline;

import io.tidemark.config.ConfigException;

/**
 * A pipeline file that is not right: one line naming the file, the line, the field and what is wrong; nothing runs
 * (exit 2, as for a bad setting).
 */
public class PipelineException extends ConfigException {
  public PipelineException(String message) {
    super(message);
  }
}
