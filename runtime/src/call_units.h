// The units of a call, in the order the decider scans them: the tool name; the raw command line
// (with its tag-character text and decoded runs where the scope has decode rules) and its canonical
// segments; the canonical path; content, URL and each argument (with decoded runs); each prompt
// segment raw and folded (with decoded runs) and, when it has look-alike letters, its Latin
// skeleton; and for tool output the string values of its structure as well. One walk, used by the
// decider and by the benchmarks, so that what the peers are measured on is what Doberman scans, by
// construction.
#ifndef DOBERMAN_RUNTIME_CALL_UNITS_H_
#define DOBERMAN_RUNTIME_CALL_UNITS_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "confusables.h"
#include "data_strings.h"
#include "doberman/doberman.h"
#include "encoded_runs.h"
#include "pack.h"
#include "runs_to_rescan.h"
#include "shell_normalizer.h"
#include "unicode_fold.h"
#include "units.h"
#include "validators.h"

namespace doberman::internal {

// Working memory of a walk (the decider keeps it in its Scratch, so warm calls do not allocate).
struct UnitBuffers {
  SegmentList segments;
  std::string folded, decoded, decoded_folded, path, data_string, skeleton, script;
  RunMemo runs;  // also read by session memory's value walk (doberman_value_tags)
};

inline doberman_status MapShellStatus(ShellStatus st) {
  switch (st) {
    case ShellStatus::kOk:
      return DOBERMAN_OK;
    case ShellStatus::kUnbalanced:
      return DOBERMAN_E_UNPARSEABLE;
    default:
      return DOBERMAN_E_LIMIT;
  }
}

inline std::string_view StringOf(const doberman_string& s) {
  return s.data == nullptr ? std::string_view() : std::string_view(s.data, s.size);
}

// The pipeline number of a script unit that is no pipeline (the script's whole text).
inline constexpr uint32_t kNoPipeline = UINT32_MAX;

// Calls v.Unit(scope, field, unit, text, decoded, origin_bit) for every unit of `call` whose scope
// has a database, v.ScriptUnit(scope, field, unit, text, pipeline) for each command of a script
// being written (ScriptCommands; judged for BLOCK only, and for the credentials in them; `pipeline`
// numbers the script's top-level pipelines, SegmentList::pipelines, and is kNoPipeline for the
// script's whole text), and v.Status(status)
// for every bound the call exceeds (a text cut at its limit, a shell command that could not be read
// whole, more encoded runs than the limit allows).
template <typename Visitor>
void WalkCallUnits(const Pack& pack, const doberman_call& call, UnitBuffers& b, Visitor& v) {
  const uint64_t max_string = pack.limits.max_string_bytes;
  auto bounded = [&](std::string_view text, uint64_t limit) {
    if (text.size() <= limit) return text;
    v.Status(DOBERMAN_E_LIMIT);
    return text.substr(0, limit);
  };
  auto unit = [&](int scope, doberman_field field, uint32_t index, std::string_view text,
                  bool decoded, uint32_t origin_bit) {
    if (pack.scopes[scope].empty() || text.empty()) return;
    v.Unit(scope, field, index, text, decoded, origin_bit);
  };
  auto with_decoded = [&](int scope, doberman_field field, uint32_t index, std::string_view raw,
                          uint32_t origin_bit, bool fold) {
    const ScopeDb& sdb = pack.scopes[scope];
    if (sdb.empty() || raw.empty()) return;
    if (fold) {
      FoldText(raw, &b.folded);
      unit(scope, field, index, b.folded, false, origin_bit);
    } else {
      unit(scope, field, index, raw, false, origin_bit);
    }
    if (!sdb.has_decode_rules) return;
    auto rescan = [&]() {
      if (fold) {
        FoldText(b.decoded, &b.decoded_folded);
        unit(scope, field, index, b.decoded_folded, true, origin_bit);
      } else {
        unit(scope, field, index, b.decoded, true, origin_bit);
      }
    };
    // Text spelled in invisible tag characters is rescanned as decoded text.
    if (DecodeTagCharacters(raw, /*min_chars=*/4, &b.decoded)) rescan();
    const DecodeLimits& limits = pack.limits.decode;
    const RunsToRescan& found = b.runs.Find(raw, limits);
    for (const EncodedRun& run : found.runs) {
      if (DecodeRun(raw, run, limits, &b.decoded)) rescan();
    }
    if (found.overflow) v.Status(DOBERMAN_E_LIMIT);
  };

  // A script being written (below), numbered from unit `first` in `field`: its commands, then its
  // text as a command line's raw text, both for BLOCK only (and secret rules, decider.cc).
  // Normalization problems are not the call's: the script is an extra reading of text the call is
  // judged on anyway.
  auto script_units = [&](doberman_field field, size_t first, std::string_view script) {
    b.segments.Clear();
    (void)pack.shell->Normalize(script, &b.segments);
    for (size_t i = 0; i < b.segments.count; ++i) {
      v.ScriptUnit(kScopeCommand, field, static_cast<uint32_t>(first + i), b.segments.segments[i],
                   b.segments.pipelines[i]);
    }
    if (!pack.scopes[kScopeCommandText].empty()) {
      v.ScriptUnit(kScopeCommandText, field, static_cast<uint32_t>(first + b.segments.count),
                   script, kNoPipeline);
    }
  };

  unit(kScopeTool, DOBERMAN_FIELD_TOOL, 0, bounded(StringOf(call.tool), max_string), false,
       kAllOrigins);
  std::string_view command = StringOf(call.command);
  if (!command.empty()) {
    command = bounded(command, max_string);
    with_decoded(kScopeCommandText, DOBERMAN_FIELD_COMMAND, 0, command, kAllOrigins, false);
    if (!pack.scopes[kScopeCommand].empty()) {
      b.segments.Clear();
      const doberman_status st = MapShellStatus(pack.shell->Normalize(command, &b.segments));
      if (st != DOBERMAN_OK) v.Status(st);
      for (size_t i = 0; i < b.segments.count; ++i) {
        unit(kScopeCommand, DOBERMAN_FIELD_COMMAND, static_cast<uint32_t>(i + 1),
             b.segments.segments[i], false, kAllOrigins);
      }
      // A script written through a here-document (`cat > deploy.sh <<'EOF'` with a shell #! line),
      // and a command ssh or kubectl exec sends to another machine, are read like a script written
      // with the Write tool below: their commands, for BLOCK only.
      if (b.segments.detached_script_count > 0) {
        b.script.clear();
        for (size_t k = 0; k < b.segments.detached_script_count; ++k) {
          b.script.append(b.segments.detached_scripts[k]).push_back('\n');
        }
        script_units(DOBERMAN_FIELD_COMMAND, b.segments.count + 1, b.script);
      }
    }
  }
  const std::string_view path = StringOf(call.path);
  if (!path.empty() && !pack.scopes[kScopePath].empty()) {
    CanonicalPath(bounded(path, max_string), StringOf(call.cwd), &b.path);
    unit(kScopePath, DOBERMAN_FIELD_PATH, 0, b.path, false, kAllOrigins);
  }
  // The content comes after the tool, command and path units: the content gates are judged at
  // its first unit over the rules those settle (content_gates.h, kScopesBeforeContent).
  const std::string_view content = bounded(StringOf(call.content), pack.limits.max_content_bytes);
  with_decoded(kScopeContent, DOBERMAN_FIELD_CONTENT, 0, content, kAllOrigins, false);
  // A shell script being written (or a Makefile's recipes) is also read as the commands it will
  // run, so `rm -rf "$HOME"/*` saved as cleanup.sh is seen before `bash cleanup.sh` runs it
  // unseen. Only BLOCK verdicts count there (v.ScriptUnit): a script is not run yet, and the AUTH a
  // command gets for ordinary work (a download, a package install) would ask about every script
  // written. A script the normalizer cannot read whole keeps the segments read so far and does not
  // raise the call's status: this is an extra reading of content already judged as text. The
  // script's text is also read as a command line's raw text (the fork bombs, relays and endless
  // spawning loops that command_text rules find across segments).
  const std::string_view script = content.empty() || pack.scopes[kScopeCommand].empty()
                                      ? std::string_view()
                                      : ScriptCommands(path, content, &b.script);
  if (!script.empty()) script_units(DOBERMAN_FIELD_CONTENT, 1, script);
  with_decoded(kScopeUrl, DOBERMAN_FIELD_URL, 0, bounded(StringOf(call.url), max_string),
               kAllOrigins, false);
  for (size_t i = 0; i < call.arg_count; ++i) {
    with_decoded(kScopeArgs, DOBERMAN_FIELD_ARGS, static_cast<uint32_t>(i),
                 bounded(StringOf(call.args[i]), max_string), kAllOrigins, false);
  }
  for (size_t i = 0; i < call.prompt_count; ++i) {
    const doberman_prompt_segment& seg = call.prompt[i];
    const uint32_t origin_bit = 1u << (static_cast<uint32_t>(seg.origin) & 31u);
    const std::string_view text = bounded(StringOf(seg.text), pack.limits.max_prompt_bytes);
    with_decoded(kScopePromptText, DOBERMAN_FIELD_PROMPT, static_cast<uint32_t>(i), text,
                 origin_bit, false);
    with_decoded(kScopePrompt, DOBERMAN_FIELD_PROMPT, static_cast<uint32_t>(i), text, origin_bit,
                 true);
    // Look-alike letters (Cyrillic, Greek, Armenian ... for Latin) read as the Latin they imitate;
    // b.folded still holds this segment's folded text.
    if (!pack.scopes[kScopePrompt].empty() && !text.empty() &&
        LatinSkeleton(b.folded, &b.skeleton)) {
      unit(kScopePrompt, DOBERMAN_FIELD_PROMPT, static_cast<uint32_t>(i), b.skeleton, false,
           origin_bit);
    }
    if (seg.origin == DOBERMAN_ORIGIN_TOOL_FETCHED) {
      // Each string value of structured tool output again as text of its own: the quotes around
      // it are data syntax, not a mention.
      ForEachDataString(text, &b.data_string, [&](std::string_view value) {
        with_decoded(kScopePromptText, DOBERMAN_FIELD_PROMPT, static_cast<uint32_t>(i), value,
                     origin_bit, false);
        with_decoded(kScopePrompt, DOBERMAN_FIELD_PROMPT, static_cast<uint32_t>(i), value,
                     origin_bit, true);
      });
    }
  }
}

}  // namespace doberman::internal

#endif  // DOBERMAN_RUNTIME_CALL_UNITS_H_
