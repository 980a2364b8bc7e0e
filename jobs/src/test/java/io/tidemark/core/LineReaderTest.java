package io.tidemark.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class LineReaderTest {
  private static List<LineReader.Line> lines(byte[] b) {
    return LineReader.lines(b);
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void aLineEndsAtALineFeedAndACarriageReturnBeforeItBelongsToTheEnd() {
    assertThat(lines(utf8("a\r\nb\r\n"))).extracting(LineReader.Line::text).containsExactly("a", "b");
    assertThat(lines(utf8("a\rb\n"))).as("a lone carriage return stays in its line").extracting(LineReader.Line::text)
        .containsExactly("a\rb");
    assertThat(lines(utf8("a\nb"))).extracting(LineReader.Line::text).containsExactly("a", "b");
    assertThat(lines(new byte[0])).isEmpty();
    assertThat(lines(utf8("\n\n"))).extracting(LineReader.Line::text).containsExactly("", "");
    assertThat(LineReader.count(utf8("a\rb\nc"))).isEqualTo(2);
  }

  /** A byte order mark starting the file or any line is no part of it (the line then parses as the object it is). */
  @Test
  void aByteOrderMarkStartingALineIsDropped() {
    byte[] bom = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF};
    java.io.ByteArrayOutputStream file = new java.io.ByteArrayOutputStream();
    file.writeBytes(bom);
    file.writeBytes(utf8("{}\n"));
    file.writeBytes(bom);
    file.writeBytes(utf8("{\"a\":1}"));
    assertThat(lines(file.toByteArray())).extracting(LineReader.Line::text).containsExactly("{}", "{\"a\":1}");
    assertThat(JsonMembers.of("\uFEFF{\"a\":1}")).containsKey("a");
  }

  @Test
  void aLineThatIsNotUtf8IsQuarantinedSayingWhere() {
    byte[] b = utf8("{\"a\":\"x?\"}\n{}");
    b[7] = (byte) 0xFF;
    List<LineReader.Line> l = lines(b);
    assertThat(l.get(0).defect()).isEqualTo("not UTF-8: byte 0xff at 7");
    assertThat(l.get(0).text()).isEqualTo("{\"a\":\"x\uFFFD\"}");
    assertThat(l.get(1).defect()).isNull();
  }
}
