package io.tidemark.cli;

import io.tidemark.config.Setting;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParseResult;

/**
 * A command run for another process (by the resident driver) resolves relative paths from that process's working
 * directory, as its own JVM would: the settings whose value is a path ({@code TIDEMARK_HOME}, whose default
 * {@code .tidemark} is relative too) and the options whose value is ({@code --from}, {@code --out}, {@code --home},
 * ...: those labelled {@code <path>}, {@code <dir>} or {@code <file>}) are made absolute before the command runs.
 */
public final class CallerPaths {
  private static final Set<String> LABELS = Set.of("<path>", "<dir>", "<file>");

  private CallerPaths() {}

  /** The caller's environment with its relative path settings made absolute, and its home named. */
  public static Map<String, String> env(Map<String, String> env, Path workDir) {
    Map<String, String> out = new LinkedHashMap<>(env);
    for (Setting s : Setting.values()) {
      String v = env.get(s.env());
      if (s.label() != null && LABELS.contains(s.label()) && v != null && !v.isBlank() && relative(v.trim())) {
        out.put(s.env(), workDir.resolve(v.trim()).normalize().toString());
      }
    }
    String home = out.get(Setting.HOME.env());
    if (home == null || home.isBlank()) {
      out.put(Setting.HOME.env(), workDir.resolve(Setting.HOME.defaultValue()).normalize().toString());
    }
    return out;
  }

  /** The arguments with the relative values of path options made absolute; as they are when they do not parse. */
  public static List<String> args(List<String> args, Map<String, String> env, Path workDir) {
    Set<String> names = new HashSet<>();
    try {
      CommandLine cl = Tidemark.commandLine(env);
      for (ParseResult pr = cl.parseArgs(args.toArray(String[]::new)); pr != null; pr = pr.subcommand()) {
        for (OptionSpec o : pr.matchedOptions()) {
          if (LABELS.contains(o.paramLabel())) {
            names.addAll(List.of(o.names()));
          }
        }
      }
    } catch (RuntimeException e) {
      return args;  // the command itself says what is wrong with them
    }
    List<String> out = new ArrayList<>();
    for (int i = 0; i < args.size(); i++) {
      String a = args.get(i);
      int eq = a.indexOf('=');
      if (names.contains(a) && i + 1 < args.size()) {
        out.add(a);
        out.add(absolute(args.get(++i), workDir));
      } else if (a.startsWith("-") && eq > 0 && names.contains(a.substring(0, eq))) {
        out.add(a.substring(0, eq + 1) + absolute(a.substring(eq + 1), workDir));
      } else {
        out.add(a);
      }
    }
    return out;
  }

  private static String absolute(String v, Path workDir) {
    return relative(v) ? workDir.resolve(v).normalize().toString() : v;
  }

  private static boolean relative(String v) {
    return !v.isEmpty() && !v.contains("://") && !Path.of(v).isAbsolute();
  }
}
