// doberman.hpp: header-only C++ wrapper over doberman.h. RAII handles, no exceptions: every
// fallible call returns a doberman_status; verdicts fail closed exactly as in the C API.
#ifndef DOBERMAN_DOBERMAN_HPP_
#define DOBERMAN_DOBERMAN_HPP_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "doberman/doberman.h"

namespace doberman {

inline doberman_string ToString(std::string_view s) { return {s.data(), s.size()}; }

// An immutable loaded pack. Thread-safe to share; move-only.
class Pack {
 public:
  Pack() = default;

  // Loads and verifies `path` against `keys`. On failure returns the status and sets *error.
  static doberman_status Load(const std::string& path, const std::vector<doberman_public_key>& keys,
                              const char* state_path, Pack* out, std::string* error = nullptr) {
    doberman_load_options options{};
    options.struct_size = sizeof options;
    options.trusted_keys = keys.data();
    options.trusted_key_count = keys.size();
    options.state_path = state_path;
    char buf[512] = {0};
    doberman_pack* raw = nullptr;
    doberman_status s = doberman_pack_load_file(path.c_str(), &options, &raw, buf, sizeof buf);
    if (s == DOBERMAN_OK) out->pack_.reset(raw);
    if (error != nullptr) *error = buf;
    return s;
  }

  const doberman_pack* get() const { return pack_.get(); }
  explicit operator bool() const { return pack_ != nullptr; }
  const char* RuleId(uint32_t rule) const { return doberman_rule_id(pack_.get(), rule); }
  const char* RuleReason(uint32_t rule) const { return doberman_rule_reason(pack_.get(), rule); }
  const char* RuleMessage(uint32_t rule) const { return doberman_rule_message(pack_.get(), rule); }

 private:
  struct Free {
    void operator()(doberman_pack* p) const { doberman_pack_free(p); }
  };
  std::unique_ptr<doberman_pack, Free> pack_;
};

// Per-thread matcher over one pack. Not thread-safe; create one per thread.
class Matcher {
 public:
  explicit Matcher(const Pack& pack) : pack_(pack.get()) {
    doberman_scratch* raw = nullptr;
    status_ = doberman_scratch_create(pack_, &raw);
    scratch_.reset(raw);
  }
  doberman_status status() const { return status_; }

  // Decides `call`; `result` stays valid until the next Decide on this matcher.
  doberman_status Decide(const doberman_call& call, doberman_result* result) {
    result->struct_size = sizeof *result;
    return doberman_decide(pack_, scratch_.get(), &call, result);
  }

 private:
  struct Free {
    void operator()(doberman_scratch* s) const { doberman_scratch_free(s); }
  };
  const doberman_pack* pack_;
  std::unique_ptr<doberman_scratch, Free> scratch_;
  doberman_status status_;
};

}  // namespace doberman

#endif  // DOBERMAN_DOBERMAN_HPP_
