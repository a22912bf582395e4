// The framing contract of a joined database (Database.framed): the bytes that open and close each
// unit in the one buffer the runtime scans, and the byte that stands in for a frame byte found
// inside a unit. The compiler rewrites every pattern of such a database so that it cannot see past
// a frame and treats the stand-in exactly as it treats the frame bytes (segment_frames.cc); the
// runtime frames units with these bytes (decider.cc). Both sides read them from here.
#ifndef DOBERMAN_FORMAT_SEGMENT_FRAME_H_
#define DOBERMAN_FORMAT_SEGMENT_FRAME_H_

namespace doberman::internal {

inline constexpr char kFrameOpen = '\x1e';     // ASCII record separator: where `^` and `\A` were
inline constexpr char kFrameClose = '\x1f';    // ASCII unit separator: where `$`, `\z`, `\Z` were
inline constexpr char kFrameStandIn = '\x1a';  // ASCII substitute: a frame byte inside a unit

}  // namespace doberman::internal

#endif  // DOBERMAN_FORMAT_SEGMENT_FRAME_H_
