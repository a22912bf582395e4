// Example execution through the public C API only, exactly as a host would call it.
#include "example_runner.h"

#include <cstring>

#include "doberman/doberman.h"

namespace doberman::compiler {
namespace {

doberman_string S(const std::string& s) { return {s.data(), s.size()}; }

std::string Describe(const IrCall& c) {
  if (!c.command.empty()) return "command";
  if (c.has_prompt) return "prompt";
  if (!c.content.empty()) return "content";
  if (!c.url.empty()) return "url";
  if (!c.path.empty()) return "path";
  if (!c.args.empty()) return "arguments";
  return "call";
}

}  // namespace

ExampleStats RunExamples(const IrPack& pack, std::span<const uint8_t> signed_pack,
                         const uint8_t public_key[32], Diagnostics& diags) {
  ExampleStats stats;
  doberman_public_key key;
  std::memcpy(key.bytes, public_key, 32);
  doberman_load_options options{};
  options.struct_size = sizeof options;
  options.trusted_keys = &key;
  options.trusted_key_count = 1;
  doberman_pack* loaded = nullptr;
  char error[512] = {0};
  doberman_status s = doberman_pack_load_memory(signed_pack.data(), signed_pack.size(), &options,
                                                &loaded, error, sizeof error);
  if (s != DOBERMAN_OK) {
    diags.Error(DiagCode::E5003, pack.manifest_loc,
                std::string("the built pack does not load in the runtime: ") + error);
    return stats;
  }
  doberman_scratch* scratch = nullptr;
  if (doberman_scratch_create(loaded, &scratch) != DOBERMAN_OK) {
    diags.Error(DiagCode::E5003, pack.manifest_loc, "cannot allocate runtime scratch");
    doberman_pack_free(loaded);
    return stats;
  }
  for (uint32_t r = 0; r < pack.rules.size(); ++r) {
    const IrRule& rule = pack.rules[r];
    for (const IrExample& e : rule.examples) {
      const IrCall& c = e.call;
      std::vector<doberman_string> args;
      for (const std::string& a : c.args) args.push_back(S(a));
      doberman_prompt_segment seg{S(c.prompt), c.origin};
      doberman_call call{};
      call.struct_size = sizeof call;
      call.tool = S(c.tool);
      call.command = S(c.command);
      call.path = S(c.path);
      call.cwd = S(c.cwd);
      call.content = S(c.content);
      call.url = S(c.url);
      call.args = args.data();
      call.arg_count = args.size();
      call.prompt = c.has_prompt ? &seg : nullptr;
      call.prompt_count = c.has_prompt ? 1 : 0;
      doberman_result result{};
      result.struct_size = sizeof result;
      doberman_decide(loaded, scratch, &call, &result);
      bool fired = false;
      for (size_t h = 0; h < result.hit_count; ++h) fired = fired || result.hits[h].rule == r;
      ++stats.run;
      if (fired != e.expect_match) {
        ++stats.failed;
        std::string other;
        for (size_t h = 0; h < result.hit_count && other.size() < 200; ++h) {
          if (result.hits[h].rule != r)
            other += std::string(other.empty() ? "" : ", ") +
                     doberman_rule_id(loaded, result.hits[h].rule);
        }
        if (e.expect_match) {
          diags.Error(DiagCode::E5001, e.loc,
                      "rule '" + rule.id + "' does not fire on its match example",
                      "expected a match on this " + Describe(c),
                      other.empty() ? std::string() : "rules that fired instead: " + other);
        } else {
          diags.Error(DiagCode::E5002, e.loc, "rule '" + rule.id + "' fires on its pass example",
                      "this " + Describe(c) + " should pass",
                      "narrow the pattern, or add a `none:` pattern for this shape");
        }
      }
    }
  }
  doberman_scratch_free(scratch);
  doberman_pack_free(loaded);
  return stats;
}

}  // namespace doberman::compiler
