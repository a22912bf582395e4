// Rewrites a pattern for a joined database, where the runtime scans all of a command's segments in
// one buffer, each framed as kFrameOpen SEGMENT kFrameClose (runtime/format/segment_frame.h). The
// rewritten pattern matches inside one frame exactly what the original matches in that segment
// alone: anchors become the frame bytes, and nothing that matched a segment's own bytes can match a
// frame byte (`.`, negated classes and \S \W \D \H \V \N exclude both).
#ifndef DOBERMAN_COMPILER_SEGMENT_FRAMES_H_
#define DOBERMAN_COMPILER_SEGMENT_FRAMES_H_

#include <optional>
#include <string>
#include <string_view>

namespace doberman::compiler {

// The framed form of `expression` compiled with Hyperscan flags `hs_flags`, or nothing when the
// pattern uses a construct the rewrite cannot keep exact (multi-line mode, inline s/m/x flags,
// Unicode properties, back references, a positive class holding every control character, a frame
// or stand-in byte named in the pattern ...); `why` then names it. A frame byte found inside a
// segment is scanned as kFrameStandIn, so a pattern is also refused when it tells the stand-in
// apart from a frame byte (`[\x1b-\x1f]`): for every rewritten pattern the three are alike.
std::optional<std::string> FramePattern(std::string_view expression, unsigned int hs_flags,
                                        std::string* why);

}  // namespace doberman::compiler

#endif  // DOBERMAN_COMPILER_SEGMENT_FRAMES_H_
