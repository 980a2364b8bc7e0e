package io.tidemark.core;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * How tidemark reads the lines of a landed file, in one place: the raw streams (a line of Spark's text source is
 * handed here as its bytes), the publish gate's accounting of lines and values, {@code tidemark check} and the tests'
 * oracles all read a line as this says, so what one counts the others find.
 *
 * <ul>
 *   <li>A line ends at a line feed, as JSON Lines says; a carriage return just before it belongs to the line end
 *       (CRLF), one anywhere else stays in the line (JSON's white space between values, a defect inside a string).</li>
 *   <li>The last line counts without its line feed; an empty file has no line; a blank line is a line.</li>
 *   <li>A UTF-8 byte order mark starting a line is not part of it: desktop tools write one at the start of a file,
 *       and files put together keep theirs inside. (Hadoop's line reader drops the file's first, Jackson's byte parser,
 *       which Spark's JSON source uses, any line's.)</li>
 *   <li>A line that is not UTF-8 is quarantined, whatever it holds ({@link Line#defect}): a reader that replaced the
 *       bytes would keep values that were never sent, and Spark's JSON source reads none of its fields. Its text is
 *       kept with U+FFFD for each byte that does not decode.</li>
 * </ul>
 */
public final class LineReader {
  private static final byte LF = '\n';
  private static final byte CR = '\r';
  private static final byte[] BOM = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF};

  /** A line as read: its text, and why it is quarantined whatever it holds (null: for the feed's rules to say). */
  public record Line(String text, String defect) {}

  private LineReader() {}

  /** The lines of a landed file. */
  public static List<Line> lines(byte[] file) {
    List<Line> out = new ArrayList<>();
    int start = 0;
    while (start < file.length) {
      int end = indexOf(file, LF, start);
      int stop = end < 0 ? file.length : end;
      out.add(line(file, start, stop));
      start = stop + 1;
    }
    return out;
  }

  /** How many lines a landed file holds ({@link #lines}, without decoding them). */
  public static long count(byte[] file) {
    long n = 0;
    for (byte b : file) {
      if (b == LF) {
        n++;
      }
    }
    return file.length > 0 && file[file.length - 1] != LF ? n + 1 : n;
  }

  /** One line's bytes as they lie between line feeds (Spark's text source splitting at {@code \n} gives these). */
  public static Line line(byte[] bytes) {
    return line(bytes, 0, bytes.length);
  }

  private static Line line(byte[] b, int from, int to) {
    int start = from;
    if (to - start >= BOM.length && b[start] == BOM[0] && b[start + 1] == BOM[1] && b[start + 2] == BOM[2]) {
      start += BOM.length;
    }
    int stop = to > start && b[to - 1] == CR ? to - 1 : to;
    CharsetDecoder strict = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
        .onUnmappableCharacter(CodingErrorAction.REPORT);
    try {
      CharBuffer text = strict.decode(ByteBuffer.wrap(b, start, stop - start));
      return new Line(text.toString(), null);
    } catch (CharacterCodingException e) {
      return new Line(new String(b, start, stop - start, StandardCharsets.UTF_8), "not UTF-8: " + firstBadByte(b,
          start, stop));
    }
  }

  /** "byte 0xff at 12": where the first sequence that does not decode starts, counted from the line's start. */
  private static String firstBadByte(byte[] b, int start, int stop) {
    CharsetDecoder d = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
        .onUnmappableCharacter(CodingErrorAction.REPORT);
    ByteBuffer in = ByteBuffer.wrap(b, start, stop - start);
    CharBuffer out = CharBuffer.allocate(stop - start + 1);
    d.decode(in, out, true);
    int at = in.position();
    return String.format("byte 0x%02x at %d", b[at] & 0xff, at - start);
  }

  private static int indexOf(byte[] b, byte x, int from) {
    for (int i = from; i < b.length; i++) {
      if (b[i] == x) {
        return i;
      }
    }
    return -1;
  }
}
