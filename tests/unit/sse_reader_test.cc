// The event-stream reader of the streamable-HTTP MCP proxy: the format's line and field rules, the
// bound on one event, and what an interrupted stream leaves.
#include "sse_reader.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace doberman::guard {
namespace {

std::vector<SseEvent> Read(const std::string& text, size_t max = 1024, size_t chunk = 1) {
  SseReader reader(max);
  std::vector<SseEvent> out;
  for (size_t i = 0; i < text.size(); i += chunk) {
    EXPECT_TRUE(reader.Feed(std::string_view(text).substr(i, chunk), [&](SseEvent& e) {
      out.push_back(e);
      return true;
    }));
  }
  return out;
}

TEST(SseReader, FieldsOfOneEvent) {
  const auto events = Read("event: message\nid: 7\nretry: 3000\ndata: {\"a\":1}\n\n");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].event, "message");
  EXPECT_EQ(events[0].id, "7");
  EXPECT_EQ(events[0].retry, "3000");
  EXPECT_EQ(events[0].data, "{\"a\":1}");
  EXPECT_TRUE(events[0].has_data && events[0].has_id);
}

TEST(SseReader, LineEndsAndDataLinesJoin) {
  // CRLF, CR and LF all end a line; a CRLF split across two reads is one line end.
  for (size_t chunk : {1, 2, 3, 64}) {
    const auto events = Read("data: one\r\ndata:two\rdata:  three\n\r\n", 1024, chunk);
    ASSERT_EQ(events.size(), 1u) << chunk;
    EXPECT_EQ(events[0].data, "one\ntwo\n three") << chunk;  // one space after the colon dropped
  }
}

TEST(SseReader, CommentsAndBlankLinesAreNotEvents) {
  const auto events = Read(": keep-alive\n\n\n\n: another\n\ndata: x\n\n");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].data, "x");
}

TEST(SseReader, AnEventPastTheBoundIsReportedWithoutItsDataAndTheNextIsRead) {
  const std::string big(5000, 'a');
  const auto events = Read("data: " + big + "\ndata: more\n\ndata: after\n\n", 100, 7);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_TRUE(events[0].too_large);
  EXPECT_TRUE(events[0].data.empty());
  EXPECT_FALSE(events[1].too_large);
  EXPECT_EQ(events[1].data, "after");
}

TEST(SseReader, AnEventTheStreamEndsInsideIsDropped) {
  EXPECT_TRUE(Read("data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n").empty());
}

TEST(SseReader, StopsWhenTheCallbackSaysSo) {
  SseReader reader(1024);
  int seen = 0;
  EXPECT_FALSE(reader.Feed("data: 1\n\ndata: 2\n\n", [&](SseEvent&) {
    ++seen;
    return false;
  }));
  EXPECT_EQ(seen, 1);
}

TEST(SseReader, WrittenEventsReadBackTheSame) {
  SseEvent e;
  e.event = "message";
  e.id = "abc";
  e.has_id = true;
  e.data = "line one\nline two";
  e.has_data = true;
  const auto events = Read(SseEventText(e));
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].data, e.data);
  EXPECT_EQ(events[0].id, "abc");
  EXPECT_EQ(SseEventText(e), "event: message\nid: abc\ndata: line one\ndata: line two\n\n");
}

}  // namespace
}  // namespace doberman::guard
