package io.tidemark.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The user's manual as the tests read it: README.md and docs/*.md, their sections by the anchor GitHub gives a
 * heading, their code blocks and inline code, and the words of a command line as a shell splits them.
 */
public final class Docs {
  private static final Pattern HEADING = Pattern.compile("^(#{1,6}) (.+)$");
  private static final Pattern FENCE = Pattern.compile("^```");

  private Docs() {}

  public static Path repo() {
    return Path.of(System.getProperty("tidemark.repo.dir", "..")).toAbsolutePath().normalize();
  }

  /** README.md and every page under docs/. */
  public static List<Path> pages() {
    List<Path> pages = new ArrayList<>(List.of(repo().resolve("README.md")));
    try (Stream<Path> docs = Files.list(repo().resolve("docs"))) {
      docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return pages;
  }

  public static String read(Path page) {
    try {
      return Files.readString(page);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The anchor GitHub gives a heading: lower case, punctuation but - and _ dropped, spaces as -. */
  public static String anchor(String heading) {
    return heading.strip().toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9 _-]", "").replace(' ', '-');
  }

  /** Every heading's anchor on a page, with its section: the text up to the next heading of its level or above. */
  public static Map<String, String> sections(Path page) {
    Map<String, String> out = new LinkedHashMap<>();
    List<String> lines = read(page).lines().toList();
    boolean fenced = false;
    List<int[]> headings = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      if (FENCE.matcher(lines.get(i)).find()) {
        fenced = !fenced;
      }
      Matcher m = HEADING.matcher(lines.get(i));
      if (!fenced && m.matches()) {
        headings.add(new int[] {i, m.group(1).length()});
      }
    }
    for (int h = 0; h < headings.size(); h++) {
      int start = headings.get(h)[0];
      int level = headings.get(h)[1];
      int end = lines.size();
      for (int k = h + 1; k < headings.size(); k++) {
        if (headings.get(k)[1] <= level) {
          end = headings.get(k)[0];
          break;
        }
      }
      Matcher m = HEADING.matcher(lines.get(start));
      m.matches();
      out.putIfAbsent(anchor(m.group(2)), String.join("\n", lines.subList(start, end)));
    }
    return out;
  }

  /** A section of a page by its anchor; fails naming the page when there is none. */
  public static String section(Path page, String anchor) {
    String s = sections(page).get(anchor);
    if (s == null) {
      throw new AssertionError(page + " has no heading with the anchor #" + anchor);
    }
    return s;
  }

  /** The lines of the code blocks of {@code text}, a line continued with a backslash joined to the next. */
  public static List<String> codeLines(String text) {
    List<String> out = new ArrayList<>();
    boolean fenced = false;
    StringBuilder pending = new StringBuilder();
    for (String line : text.lines().toList()) {
      if (FENCE.matcher(line.strip()).find()) {
        fenced = !fenced;
        continue;
      }
      if (!fenced) {
        continue;
      }
      if (line.endsWith("\\")) {
        pending.append(line, 0, line.length() - 1).append(' ');
        continue;
      }
      out.add(pending + line);
      pending.setLength(0);
    }
    return out;
  }

  /** The inline code spans of {@code text}, outside code blocks ({@code \|} in a table cell read as {@code |}). */
  public static List<String> inlineCode(String text) {
    List<String> out = new ArrayList<>();
    boolean fenced = false;
    Pattern span = Pattern.compile("`([^`]+)`");
    for (String line : text.lines().toList()) {
      if (FENCE.matcher(line.strip()).find()) {
        fenced = !fenced;
        continue;
      }
      if (fenced) {
        continue;
      }
      Matcher m = span.matcher(line);
      while (m.find()) {
        out.add(m.group(1).replace("\\|", "|"));
      }
    }
    return out;
  }

  /**
   * The lines of the first code block after "**Release.**" in the section {@code anchor} of a page that run
   * {@code ./tidemark}: a recipe's commands, as a person copies them.
   */
  public static List<String> recipe(Path page, String anchor) {
    return recipeBlocks(page, anchor).get(0).stream().filter(l -> l.startsWith("./tidemark ")).toList();
  }

  /** Every code block after "**Release.**" in the section {@code anchor}, each as its lines (blank ones left out). */
  public static List<List<String>> recipeBlocks(Path page, String anchor) {
    String section = section(page, anchor);
    int release = section.indexOf("**Release.**");
    if (release < 0) {
      throw new AssertionError("#" + anchor + " of " + page + " has no **Release.** paragraph");
    }
    List<List<String>> blocks = new ArrayList<>();
    String rest = section.substring(release);
    for (int open = rest.indexOf("```"); open >= 0; open = rest.indexOf("```", rest.indexOf("```",
        rest.indexOf('\n', open)) + 3)) {
      int close = rest.indexOf("```", rest.indexOf('\n', open));
      blocks.add(codeLines(rest.substring(open, close + 3)).stream().filter(l -> !l.isBlank()).toList());
    }
    if (blocks.isEmpty()) {
      throw new AssertionError("#" + anchor + " of " + page + " has no commands after its **Release.** paragraph");
    }
    return blocks;
  }

  /**
   * The words of a command line as a shell splits them: quotes ('...', "..." with \" and \\ inside) kept together and
   * dropped, a # that starts a word and what follows it dropped (a comment).
   */
  public static List<String> words(String line) {
    List<String> words = new ArrayList<>();
    StringBuilder w = new StringBuilder();
    boolean inWord = false;
    for (int i = 0; i < line.length(); i++) {
      char c = line.charAt(i);
      if (c == '\'' || c == '"') {
        int end = i + 1;
        while (end < line.length() && line.charAt(end) != c) {
          if (c == '"' && line.charAt(end) == '\\' && end + 1 < line.length()) {
            end++;
            w.append(line.charAt(end));
          } else {
            w.append(line.charAt(end));
          }
          end++;
        }
        i = end;
        inWord = true;
      } else if (Character.isWhitespace(c)) {
        if (inWord) {
          words.add(w.toString());
          w.setLength(0);
          inWord = false;
        }
      } else if (c == '#' && !inWord) {
        break;
      } else {
        w.append(c);
        inWord = true;
      }
    }
    if (inWord) {
      words.add(w.toString());
    }
    return words;
  }
}
