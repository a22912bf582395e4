// The C ABI of session memory (doberman/doberman_memory.h): argument checks, the exception
// firewall and fail-closed defaults over the state directory, the store and the value searches.
#include <sys/types.h>

#include <ctime>

#include <algorithm>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "doberman/doberman_memory.h"
#include "log_row.h"
#include "state_dir.h"
#include "state_store.h"
#include "value_memory.h"

using doberman::state::Fingerprint;

struct doberman_memory {
  doberman::state::StateDir dir;
  std::unique_ptr<doberman::state::StateStore> store;
  doberman::state::LastSessionFingerprint sessions;
};

namespace {

void WriteError(char* buf, size_t size, const std::string& message) {
  if (buf == nullptr || size == 0) return;
  const size_t n = std::min(size - 1, message.size());
  std::memcpy(buf, message.data(), n);
  buf[n] = '\0';
}

std::string_view View(doberman_string s) {
  return s.data == nullptr ? std::string_view() : std::string_view(s.data, s.size);
}

bool Valid(doberman_string s) { return s.data != nullptr || s.size == 0; }

Fingerprint Session(doberman_memory* m, doberman_string session) {
  return m->sessions.Of(m->dir.key, View(session));
}

int64_t Now() { return static_cast<int64_t>(std::time(nullptr)); }

template <typename F>
doberman_status Guarded(F&& body) {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return DOBERMAN_E_NO_MEMORY;
  } catch (...) {
    return DOBERMAN_E_INTERNAL;
  }
}

}  // namespace

extern "C" {

doberman_status doberman_memory_open(const char* state_dir, doberman_memory** out, int* rebuilt,
                                     char* error_buf, size_t error_buf_size) {
  if (out != nullptr) *out = nullptr;
  if (rebuilt != nullptr) *rebuilt = 0;
  if (state_dir == nullptr || out == nullptr) return DOBERMAN_E_ARGUMENT;
  return Guarded([&]() {
    auto m = std::make_unique<doberman_memory>();
    std::string error;
    if (!doberman::state::OpenStateDir(state_dir, &m->dir, &error)) {
      WriteError(error_buf, error_buf_size, error);
      return DOBERMAN_E_IO;
    }
    bool was_rebuilt = false;
    m->store = doberman::state::StateStore::Open(m->dir, {}, &was_rebuilt, &error);
    if (m->store == nullptr) {
      WriteError(error_buf, error_buf_size, error);
      return DOBERMAN_E_IO;
    }
    if (rebuilt != nullptr) *rebuilt = was_rebuilt ? 1 : 0;
    *out = m.release();
    return DOBERMAN_OK;
  });
}

void doberman_memory_close(doberman_memory* memory) { delete memory; }

doberman_status doberman_memory_bind_scratch(const doberman_memory* memory,
                                             doberman_scratch* scratch) {
  if (memory == nullptr || scratch == nullptr) return DOBERMAN_E_ARGUMENT;
  return doberman_scratch_set_fingerprint_key(scratch, memory->dir.key.data());
}

doberman_status doberman_memory_record_shown(doberman_memory* memory, const doberman_pack* pack,
                                             doberman_scratch* scratch, doberman_string session,
                                             doberman_string tool, doberman_string text) {
  if (memory == nullptr || pack == nullptr || scratch == nullptr || !Valid(session) ||
      !Valid(tool) || !Valid(text)) {
    return DOBERMAN_E_ARGUMENT;
  }
  return Guarded([&]() {
    std::vector<doberman::state::RecordedValue> secrets;
    const bool complete =
        doberman::state::ShownSecrets(pack, scratch, View(tool), View(text), {}, &secrets);
    std::string error;
    if (!memory->store->RecordValues(Session(memory, session), secrets,
                                     doberman::state::ValueKind::kSecret, Now(), &error)) {
      return DOBERMAN_E_IO;
    }
    return complete ? DOBERMAN_OK : DOBERMAN_E_LIMIT;
  });
}

doberman_status doberman_memory_record_untrusted(doberman_memory* memory, doberman_scratch* scratch,
                                                 doberman_string session, doberman_string text) {
  if (memory == nullptr || scratch == nullptr || !Valid(session) || !Valid(text))
    return DOBERMAN_E_ARGUMENT;
  return Guarded([&]() {
    std::vector<doberman::state::RecordedValue> values;
    const bool complete = doberman::state::CarriedValues(
        scratch, View(text), doberman::state::kMaxCarriedValues, &values);
    std::string error;
    if (!memory->store->RecordValues(Session(memory, session), values,
                                     doberman::state::ValueKind::kUntrusted, Now(), &error)) {
      return DOBERMAN_E_IO;
    }
    return complete ? DOBERMAN_OK : DOBERMAN_E_LIMIT;
  });
}

doberman_status doberman_memory_check_outbound(doberman_memory* memory, doberman_scratch* scratch,
                                               doberman_string session, const doberman_call* call,
                                               doberman_verdict* verdict) {
  if (verdict == nullptr) return DOBERMAN_E_ARGUMENT;
  *verdict = DOBERMAN_AUTH;
  if (memory == nullptr || scratch == nullptr || call == nullptr || !Valid(session) ||
      call->struct_size < sizeof(doberman_call)) {
    return DOBERMAN_E_ARGUMENT;
  }
  return Guarded([&]() {
    for (doberman_string s : {call->command, call->url, call->content, call->path}) {
      if (!Valid(s)) return DOBERMAN_E_ARGUMENT;
    }
    for (size_t i = 0; i < call->arg_count; ++i) {
      if (call->args == nullptr || !Valid(call->args[i])) return DOBERMAN_E_ARGUMENT;
    }
    const Fingerprint who = Session(memory, session);
    std::string error;
    // Held in memory from the second lookup on: the session's tags then spare the fingerprints
    // of the values it cannot hold.
    const doberman::state::TagFilter* filter = nullptr;
    if (!memory->store->PrepareLookup(who, &filter, &error)) return DOBERMAN_E_IO;
    std::vector<Fingerprint> values;
    size_t counted = 0;
    bool complete = true;
    auto carried = [&](doberman_string s) {
      complete =
          doberman::state::CarriedValues(scratch, View(s), doberman::state::kMaxCarriedValues,
                                         filter, &counted, &values) &&
          complete;
    };
    for (doberman_string s : {call->command, call->url, call->content, call->path}) carried(s);
    for (size_t i = 0; i < call->arg_count; ++i) carried(call->args[i]);
    doberman::state::ValueKind worst = doberman::state::ValueKind::kNone;
    if (!memory->store->LookupValues(who, values, Now(), &worst, &error)) return DOBERMAN_E_IO;
    *verdict = worst == doberman::state::ValueKind::kSecret      ? DOBERMAN_BLOCK
               : worst == doberman::state::ValueKind::kUntrusted ? DOBERMAN_AUTH
                                                                 : DOBERMAN_PASS;
    if (!complete) {
      *verdict = std::max(*verdict, DOBERMAN_AUTH);
      return DOBERMAN_E_LIMIT;
    }
    return DOBERMAN_OK;
  });
}

doberman_status doberman_memory_log(doberman_memory* memory, doberman_string session,
                                    const char* host, const char* event, const char* tool,
                                    doberman_verdict verdict, const char* const* reasons,
                                    size_t reason_count, const char* const* rules,
                                    size_t rule_count) {
  if (memory == nullptr || !Valid(session) || (reason_count > 0 && reasons == nullptr) ||
      (rule_count > 0 && rules == nullptr) || verdict < DOBERMAN_PASS || verdict > DOBERMAN_BLOCK) {
    return DOBERMAN_E_ARGUMENT;
  }
  return Guarded([&]() {
    doberman::state::LogFields f;
    f.host = host != nullptr ? host : "";
    f.event = event != nullptr ? event : "";
    f.tool = tool != nullptr ? tool : "";
    doberman::state::LogRow row;
    row.session = Session(memory, session);
    row.verdict = static_cast<int>(verdict);
    f.session = doberman::state::Hex(row.session);
    f.verdict = doberman_verdict_name(verdict);
    for (size_t i = 0; i < reason_count; ++i) f.reasons.emplace_back(reasons[i] ? reasons[i] : "");
    for (size_t i = 0; i < rule_count; ++i) f.rules.emplace_back(rules[i] ? rules[i] : "");
    row.json = doberman::state::LogRowJson(f);
    std::string error;
    return memory->store->AppendLog(&row, &error) ? DOBERMAN_OK : DOBERMAN_E_IO;
  });
}

}  // extern "C"
