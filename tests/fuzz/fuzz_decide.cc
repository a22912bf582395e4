// Fuzz target for the whole decision path with a real signed pack (DOBERMAN_FUZZ_PACK and
// DOBERMAN_FUZZ_PUBKEY; the ctest fixture's mini pack by default). The first input byte picks the
// field (and, for written content, the file's name), the rest is its text. Invariants: a verdict is
// always written, a non-OK status is never PASS, and reported spans stay inside the input's bounds
// for raw fields.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <iterator>
#include <string>
#include <string_view>

#include "doberman/doberman.h"

namespace {

struct Fixture {
  doberman_pack* pack = nullptr;
  doberman_scratch* scratch = nullptr;
  Fixture() {
    const char* pack_path = std::getenv("DOBERMAN_FUZZ_PACK");
    const char* key_path = std::getenv("DOBERMAN_FUZZ_PUBKEY");
    std::string p = pack_path ? pack_path : "test-packs/r1/mini.dpack";
    std::string k = key_path ? key_path : "test-packs/test.pub";
    doberman_public_key key;
    if (doberman_public_key_read_file(k.c_str(), &key, nullptr, 0) != DOBERMAN_OK) std::abort();
    doberman_load_options o{};
    o.struct_size = sizeof o;
    o.trusted_keys = &key;
    o.trusted_key_count = 1;
    if (doberman_pack_load_file(p.c_str(), &o, &pack, nullptr, 0) != DOBERMAN_OK) std::abort();
    if (doberman_scratch_create(pack, &scratch) != DOBERMAN_OK) std::abort();
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Fixture f;
  if (size == 0) return 0;
  const uint8_t selector = data[0] % 6;
  doberman_string text{reinterpret_cast<const char*>(data + 1), size - 1};
  doberman_call call{};
  call.struct_size = sizeof call;
  doberman_prompt_segment seg{text, static_cast<doberman_origin>(data[0] / 6 % 3)};
  switch (selector) {
    case 0:
      call.command = text;
      break;
    case 1: {
      // Written content, under a name that picks how it is also read as commands: none, a source
      // file's command literals, a Makefile's recipes, a shell script.
      static constexpr std::string_view kPaths[] = {"notes.txt",  "tools/a.py", "tools/a.rb",
                                                    "tools/a.js", "Makefile",   "run.sh"};
      const std::string_view path = kPaths[data[0] / 6 % std::size(kPaths)];
      call.content = text;
      call.path = {path.data(), path.size()};
      call.cwd = {"/home/dev/project", 17};
      break;
    }
    case 2:
      call.prompt = &seg;
      call.prompt_count = 1;
      break;
    case 3:
      call.path = text;
      call.cwd = {"/home/dev/project", 17};
      break;
    case 4:
      call.url = text;
      break;
    default:
      call.args = &text;
      call.arg_count = 1;
      break;
  }
  doberman_result r{};
  r.struct_size = sizeof r;
  doberman_status s = doberman_decide(f.pack, f.scratch, &call, &r);
  if (r.verdict > DOBERMAN_BLOCK) __builtin_trap();
  if (s != DOBERMAN_OK && r.verdict == DOBERMAN_PASS) __builtin_trap();
  if (r.hit_count > 64) __builtin_trap();
  for (size_t i = 0; i < r.hit_count; ++i) {
    const doberman_hit& h = r.hits[i];
    if (h.start > h.end) __builtin_trap();
    // A raw field's own hits stay inside it. (Written content also has a path, whose hits count
    // in the path's bytes: with the default pack a file name's own rules match it. A script's
    // commands are units 1, 2, ... of the content field, their spans in the command as normalized,
    // which can be longer than the content: `rm -UUUU...rf ~` reads as `rm -U -U ... -r -f ~`.)
    const bool raw_field = (selector == 1 && h.field == DOBERMAN_FIELD_CONTENT && h.unit == 0) ||
                           (selector == 4 && h.field == DOBERMAN_FIELD_URL);
    if (raw_field && !h.decoded && h.end > text.size) __builtin_trap();
  }
  return 0;
}
