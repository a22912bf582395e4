// The C ABI: argument checks, exception firewall (std containers may throw bad_alloc), and the
// fail-closed defaults. Everything else is delegated to pack.cc and decider.cc.
#include <fcntl.h>
#include <sodium.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <iterator>
#include <memory>
#include <new>
#include <optional>
#include <string>

#include "blob_loader.h"
#include "build_info.h"
#include "call_units.h"
#include "decider.h"
#include "doberman/doberman.h"
#include "encoded_runs.h"
#include "envelope.h"
#include "key_file.h"
#include "pack.h"
#include "page_memory.h"
#include "regular_file.h"
#include "shell_normalizer.h"
#include "unicode_fold.h"
#include "units.h"
#include "validators.h"

using doberman::internal::LoadOptions;
using doberman::internal::Pack;

namespace {

void WriteError(char* buf, size_t size, const std::string& message) {
  if (buf == nullptr || size == 0) return;
  size_t n = std::min(size - 1, message.size());
  std::memcpy(buf, message.data(), n);
  buf[n] = '\0';
}

// The options struct grows by appending; callers built against an older header pass a smaller size.
constexpr size_t kLoadOptionsV1 = offsetof(doberman_load_options, now_unix) + sizeof(int64_t);
constexpr size_t kLoadOptionsWithFields =
    offsetof(doberman_load_options, fields) + sizeof(uint32_t);
constexpr size_t kLoadOptionsWithImageCache =
    offsetof(doberman_load_options, image_cache_dir) + sizeof(const char*);

doberman_status LoadBytes(std::span<const uint8_t> bytes, const doberman_load_options* options,
                          doberman_pack** out, char* error_buf, size_t error_buf_size,
                          doberman::internal::BlobFetch fetch_blob = nullptr) {
  std::string error;
  std::unique_ptr<Pack> pack;
  LoadOptions lo;
  lo.fetch_blob = std::move(fetch_blob);
  lo.trusted = {options->trusted_keys, options->trusted_key_count};
  lo.state_path = options->state_path;
  lo.now_unix = options->now_unix;
  if (options->struct_size >= kLoadOptionsWithFields && options->fields != 0) {
    lo.scopes = doberman::internal::ScopesForFields(options->fields);
  }
  std::optional<doberman::internal::ImageCache> images;
  if (options->struct_size >= kLoadOptionsWithImageCache && options->image_cache_dir != nullptr) {
    images.emplace(options->image_cache_dir);
    if (images->enabled()) lo.images = &*images;
  }
  doberman_status s = doberman::internal::LoadPack(bytes, lo, &pack, &error);
  if (s != DOBERMAN_OK) {
    WriteError(error_buf, error_buf_size, error);
    return s;
  }
  // doberman_pack adds no members: the handle is the Pack itself.
  *out = static_cast<doberman_pack*>(pack.release());
  return DOBERMAN_OK;
}

// Reads [offset, offset + n) of the file into dest.
bool ReadInto(int fd, uint8_t* dest, uint64_t offset, uint64_t n) {
  uint64_t got = 0;
  while (got < n) {
    const ssize_t r = ::pread(fd, dest + got, n - got, static_cast<off_t>(offset + got));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    got += static_cast<uint64_t>(r);
  }
  return true;
}

bool OptionsValid(const doberman_load_options* o) {
  return o != nullptr && o->struct_size >= kLoadOptionsV1 &&
         (o->trusted_keys != nullptr || o->trusted_key_count == 0);
}

}  // namespace

extern "C" {

doberman_status doberman_pack_load_file(const char* path, const doberman_load_options* options,
                                        doberman_pack** out, char* error_buf,
                                        size_t error_buf_size) {
  if (out != nullptr) *out = nullptr;
  if (path == nullptr || out == nullptr || !OptionsValid(options)) {
    WriteError(error_buf, error_buf_size, "invalid argument");
    return DOBERMAN_E_ARGUMENT;
  }
  try {
    // Read into private memory (not a shared mapping: a blob must not change between its digest
    // check and its use), without zero-filling a buffer that is about to be overwritten.
    // Never waits on the path: a FIFO or device there is refused, not read.
    std::string open_error;
    const int fd = doberman::internal::OpenRegularFileForReading(path, "pack", &open_error);
    if (fd < 0) {
      WriteError(error_buf, error_buf_size, open_error);
      return DOBERMAN_E_IO;
    }
    struct FdCloser {
      int fd;
      ~FdCloser() { ::close(fd); }
    } closer{fd};
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
      WriteError(error_buf, error_buf_size, std::string("cannot stat pack ") + path);
      return DOBERMAN_E_IO;
    }
    const auto size = static_cast<uint64_t>(st.st_size);
    if (size > 2 * doberman::internal::kMaxPayloadSize + 4096) {
      WriteError(error_buf, error_buf_size, std::string("pack ") + path + " is too large");
      return DOBERMAN_E_TRUNCATED;
    }
    std::unique_ptr<uint8_t[]> bytes(new uint8_t[size + 1]);
    const std::span<const uint8_t> whole(bytes.get(), size);
    // Header, tables and signature first; then each database the handle loads is read by the thread
    // that checks its digest, right before (reading is spread over the threads, and a handle for
    // some fields, a hook, reads only their databases). Bytes never read are never looked at.
    doberman::internal::EnvelopeHeader header;
    doberman::internal::EnvelopeParts parts;
    std::string ignored;
    if (ReadInto(fd, bytes.get(), 0, std::min<uint64_t>(size, doberman::internal::kHeaderSize)) &&
        doberman::internal::UNVERIFIED_PeekHeader(whole, &header, &parts, &ignored) ==
            DOBERMAN_OK) {
      uint8_t* tables = bytes.get() + doberman::internal::kHeaderSize;
      const uint64_t tables_size = parts.payload.size() + doberman::internal::kSignatureSize;
      // The tables' pages are taken in one call before the read fills them (a page fault each was a
      // measurable part of a hook process's time).
      doberman::internal::PopulateForWriting(tables, tables_size);
      if (ReadInto(fd, tables, doberman::internal::kHeaderSize, tables_size)) {
        const uint64_t blobs_at = static_cast<uint64_t>(parts.blobs.data() - bytes.get());
        return LoadBytes(whole, options, out, error_buf, error_buf_size,
                         [fd, blobs_at](uint64_t offset, uint64_t n, uint8_t* dest) {
                           return ReadInto(fd, dest, blobs_at + offset, n);
                         });
      }
    }
    if (!ReadInto(fd, bytes.get(), 0, size)) {
      WriteError(error_buf, error_buf_size, std::string("cannot read pack ") + path);
      return DOBERMAN_E_IO;
    }
    return LoadBytes(whole, options, out, error_buf, error_buf_size);
  } catch (const std::bad_alloc&) {
    WriteError(error_buf, error_buf_size, "out of memory");
    return DOBERMAN_E_NO_MEMORY;
  } catch (...) {
    WriteError(error_buf, error_buf_size, "internal error while loading");
    return DOBERMAN_E_INTERNAL;
  }
}

doberman_status doberman_pack_load_memory(const uint8_t* data, size_t size,
                                          const doberman_load_options* options, doberman_pack** out,
                                          char* error_buf, size_t error_buf_size) {
  if (out != nullptr) *out = nullptr;
  if ((data == nullptr && size > 0) || out == nullptr || !OptionsValid(options)) {
    WriteError(error_buf, error_buf_size, "invalid argument");
    return DOBERMAN_E_ARGUMENT;
  }
  try {
    // The caller's memory is read in place (like any input it must not change during the call),
    // unless it is not aligned for the FlatBuffers tables inside.
    if (reinterpret_cast<uintptr_t>(data) % alignof(std::max_align_t) == 0) {
      return LoadBytes({data, size}, options, out, error_buf, error_buf_size);
    }
    std::unique_ptr<uint8_t[]> copy(new uint8_t[size + 1]);
    if (size > 0) std::memcpy(copy.get(), data, size);
    return LoadBytes({copy.get(), size}, options, out, error_buf, error_buf_size);
  } catch (const std::bad_alloc&) {
    WriteError(error_buf, error_buf_size, "out of memory");
    return DOBERMAN_E_NO_MEMORY;
  } catch (...) {
    WriteError(error_buf, error_buf_size, "internal error while loading");
    return DOBERMAN_E_INTERNAL;
  }
}

void doberman_pack_free(doberman_pack* pack) { delete static_cast<Pack*>(pack); }

doberman_status doberman_pack_get_info(const doberman_pack* pack, doberman_pack_info* info) {
  if (pack == nullptr || info == nullptr || info->struct_size < sizeof(doberman_pack_info)) {
    return DOBERMAN_E_ARGUMENT;
  }
  info->name = pack->name.c_str();
  info->version = pack->version.c_str();
  info->revision = pack->header.revision;
  info->created_unix = pack->header.created_unix;
  info->expires_unix = pack->header.expires_unix;
  info->rule_count = static_cast<uint32_t>(pack->rules.size());
  info->pattern_count = static_cast<uint32_t>(pack->patterns.size());
  info->hs_version = pack->hs_version.c_str();
  info->platform = pack->platform.c_str();
  return DOBERMAN_OK;
}

const char* doberman_rule_id(const doberman_pack* pack, uint32_t rule) {
  return pack != nullptr && rule < pack->rules.size() ? pack->rules[rule].id.data() : nullptr;
}
const char* doberman_rule_reason(const doberman_pack* pack, uint32_t rule) {
  return pack != nullptr && rule < pack->rules.size() ? pack->rules[rule].reason.data() : nullptr;
}
const char* doberman_rule_message(const doberman_pack* pack, uint32_t rule) {
  return pack != nullptr && rule < pack->rules.size() ? pack->rules[rule].message.data() : nullptr;
}

doberman_status doberman_scratch_create(const doberman_pack* pack, doberman_scratch** out) {
  if (out != nullptr) *out = nullptr;
  if (pack == nullptr || out == nullptr) return DOBERMAN_E_ARGUMENT;
  if (sodium_init() < 0) return DOBERMAN_E_INTERNAL;
  try {
    auto scratch = std::make_unique<doberman_scratch>(*pack);
    // Copies of the scratch the loader sized (hs_alloc_scratch per database would check each
    // database's checksum again).
    if (doberman::internal::CloneHsScratch(*scratch) != DOBERMAN_OK) return DOBERMAN_E_NO_MEMORY;
    *out = scratch.release();
    return DOBERMAN_OK;
  } catch (...) {
    return DOBERMAN_E_NO_MEMORY;
  }
}

void doberman_scratch_free(doberman_scratch* scratch) { delete scratch; }

doberman_status doberman_scratch_set_fingerprint_key(doberman_scratch* scratch,
                                                     const uint8_t key[32]) {
  if (scratch == nullptr || key == nullptr) return DOBERMAN_E_ARGUMENT;
  scratch->SetFingerprintKey(key);
  return DOBERMAN_OK;
}

doberman_status doberman_decide(const doberman_pack* pack, doberman_scratch* scratch,
                                const doberman_call* call, doberman_result* result) {
  if (result == nullptr || result->struct_size < sizeof(doberman_result))
    return DOBERMAN_E_ARGUMENT;
  result->verdict = DOBERMAN_AUTH;
  result->hits = nullptr;
  result->hit_count = 0;
  result->hits_dropped = 0;
  if (pack == nullptr) {
    result->status = DOBERMAN_E_NO_PACK;
    return DOBERMAN_E_NO_PACK;
  }
  if (scratch == nullptr || &scratch->pack != pack || call == nullptr ||
      call->struct_size < sizeof(doberman_call)) {
    result->status = DOBERMAN_E_ARGUMENT;
    return DOBERMAN_E_ARGUMENT;
  }
  result->status = DOBERMAN_OK;
  try {
    return doberman::internal::Decide(*scratch, *call, result);
  } catch (...) {
    result->verdict = DOBERMAN_AUTH;
    result->status = DOBERMAN_E_INTERNAL;
    result->hit_count = 0;
    return DOBERMAN_E_INTERNAL;
  }
}

const char* doberman_status_name(doberman_status status) {
  static const char* const kNames[] = {"DOBERMAN_OK",
                                       "DOBERMAN_E_ARGUMENT",
                                       "DOBERMAN_E_IO",
                                       "DOBERMAN_E_TRUNCATED",
                                       "DOBERMAN_E_MAGIC",
                                       "DOBERMAN_E_ENVELOPE_VERSION",
                                       "DOBERMAN_E_UNKNOWN_KEY",
                                       "DOBERMAN_E_SIGNATURE",
                                       "DOBERMAN_E_STRUCTURE",
                                       "DOBERMAN_E_HS_VERSION",
                                       "DOBERMAN_E_HS_PLATFORM",
                                       "DOBERMAN_E_HS_DESERIALIZE",
                                       "DOBERMAN_E_EXPIRED",
                                       "DOBERMAN_E_ROLLBACK",
                                       "DOBERMAN_E_STATE",
                                       "DOBERMAN_E_NO_MEMORY",
                                       "DOBERMAN_E_SCAN",
                                       "DOBERMAN_E_LIMIT",
                                       "DOBERMAN_E_UNPARSEABLE",
                                       "DOBERMAN_E_INTERNAL",
                                       "DOBERMAN_E_NO_PACK",
                                       "DOBERMAN_E_NOT_LOADED"};
  auto i = static_cast<size_t>(status);
  return i < sizeof kNames / sizeof kNames[0] ? kNames[i] : "DOBERMAN_E_UNKNOWN";
}

const char* doberman_verdict_name(doberman_verdict verdict) {
  switch (verdict) {
    case DOBERMAN_PASS:
      return "PASS";
    case DOBERMAN_AUTH:
      return "AUTH";
    case DOBERMAN_BLOCK:
      return "BLOCK";
  }
  return "BLOCK";
}

doberman_status doberman_public_key_read_file(const char* path, doberman_public_key* out,
                                              char* error_buf, size_t error_buf_size) {
  if (path == nullptr || out == nullptr) {
    WriteError(error_buf, error_buf_size, "invalid argument");
    return DOBERMAN_E_ARGUMENT;
  }
  try {
    std::string error;
    if (!doberman::internal::ReadPublicKeyFile(path, out, &error)) {
      WriteError(error_buf, error_buf_size, error);
      return DOBERMAN_E_IO;
    }
    return DOBERMAN_OK;
  } catch (...) {
    WriteError(error_buf, error_buf_size, "out of memory");
    return DOBERMAN_E_NO_MEMORY;
  }
}

uint32_t doberman_call_fields(const doberman_call* call) {
  if (call == nullptr || call->struct_size < sizeof(doberman_call)) return 0;
  return doberman::internal::FieldsOfCall(*call);
}

doberman_status doberman_canonical_views(const doberman_pack* pack, doberman_field field,
                                         doberman_string text, doberman_string cwd,
                                         doberman_view_fn fn, void* context) {
  if (pack == nullptr || fn == nullptr || (text.data == nullptr && text.size != 0) ||
      (cwd.data == nullptr && cwd.size != 0)) {
    return DOBERMAN_E_ARGUMENT;
  }
  const auto* p = static_cast<const Pack*>(pack);
  const std::string_view in(text.data == nullptr ? "" : text.data, text.size);
  const std::string_view dir(cwd.data == nullptr ? "" : cwd.data, cwd.size);
  try {
    std::string out;
    switch (field) {
      case DOBERMAN_FIELD_COMMAND: {
        doberman::internal::SegmentList segments;
        const auto status = p->shell->Normalize(in, &segments);
        for (size_t i = 0; i < segments.count; ++i) {
          fn(context, i, {segments.segments[i].data(), segments.segments[i].size()});
        }
        if (status == doberman::internal::ShellStatus::kOk) return DOBERMAN_OK;
        return status == doberman::internal::ShellStatus::kUnbalanced ? DOBERMAN_E_UNPARSEABLE
                                                                      : DOBERMAN_E_LIMIT;
      }
      case DOBERMAN_FIELD_PROMPT:
        doberman::internal::FoldText(in, &out);
        fn(context, 0, {out.data(), out.size()});
        return DOBERMAN_OK;
      case DOBERMAN_FIELD_PATH:
        doberman::internal::CanonicalPath(in, dir, &out);
        fn(context, 0, {out.data(), out.size()});
        return DOBERMAN_OK;
      default:
        return DOBERMAN_E_ARGUMENT;
    }
  } catch (const std::bad_alloc&) {
    return DOBERMAN_E_NO_MEMORY;
  } catch (...) {
    return DOBERMAN_E_INTERNAL;
  }
}

const char* doberman_runtime_version(void) {
  // Built once: hs_version() is a constant string of the linked Hyperscan.
  static const std::string line = std::string(DOBERMAN_VERSION_STRING) + "; packs: envelope " +
                                  std::to_string(doberman::internal::kOldestEnvelopeVersion) + "-" +
                                  std::to_string(doberman::internal::kEnvelopeVersion) +
                                  "; Hyperscan " + hs_version() + "; " + DOBERMAN_BUILD_TYPE;
  return line.c_str();
}

}  // extern "C"

int doberman_rule_has_tag(const doberman_pack* pack, uint32_t rule, const char* tag) {
  if (pack == nullptr || tag == nullptr || rule >= pack->rules.size()) return 0;
  for (uint32_t t : pack->rules[rule].tags) {
    if (t < pack->tags.size() && pack->tags[t] == tag) return 1;
  }
  return 0;
}

namespace {

uint64_t ValueTag(const doberman_scratch* scratch, std::string_view value) {
  uint8_t bytes[crypto_shorthash_siphash24_BYTES];
  crypto_shorthash_siphash24(bytes, reinterpret_cast<const uint8_t*>(value.data()), value.size(),
                             scratch->tag_key);
  uint64_t tag = 0;
  for (size_t i = 0; i < sizeof bytes; ++i) tag |= static_cast<uint64_t>(bytes[i]) << (8 * i);
  return tag;
}

// The values `text` carries (and those of one decoded layer of its encoded runs), each once: its
// tag (SipHash-2-4 under the scratch's tag key), and, when `filter` is NULL or accepts the tag, its
// fingerprint (keyed BLAKE2b, as a hit's), passed to `fn`. Shared by doberman_value_fingerprints
// and doberman_value_tags.
doberman_status WalkValues(doberman_scratch* scratch, doberman_string text, size_t min_length,
                           size_t max_values, doberman_tag_filter_fn filter,
                           doberman_tagged_value_fn fn, void* context) {
  if (scratch == nullptr || fn == nullptr || (text.data == nullptr && text.size != 0))
    return DOBERMAN_E_ARGUMENT;
  const std::string_view in(text.data == nullptr ? "" : text.data, text.size);
  try {
    struct Found {
      uint64_t tag;
      std::array<uint8_t, 16> fingerprint;
      int decoded;
      bool wanted;
    };
    struct Walk {
      const doberman_scratch* scratch = nullptr;
      doberman_tag_filter_fn filter = nullptr;
      void* context = nullptr;
      size_t max_values = 0;
      int decoded = 0;
      bool overflow = false;
      std::vector<Found> found;
    };
    // The list's storage is kept for the thread's next walk (every outbound call of a session
    // walks its values); taken, not shared, so that a callback walking again gets its own.
    thread_local std::vector<Found> spare;
    Walk walk;
    walk.found = std::move(spare);
    walk.found.clear();
    walk.scratch = scratch;
    walk.filter = filter;
    walk.context = context;
    walk.max_values = max_values;
    auto on_value = [](void* ctx, std::string_view value) {
      auto* w = static_cast<Walk*>(ctx);
      const auto* bytes = reinterpret_cast<const uint8_t*>(value.data());
      const uint64_t tag = ValueTag(w->scratch, value);
      for (const Found& g : w->found) {
        if (g.tag == tag) return true;
      }
      if (w->found.size() == w->max_values) {
        w->overflow = true;
        return false;
      }
      Found f{tag, {}, w->decoded, w->filter == nullptr || w->filter(w->context, tag) != 0};
      if (f.wanted) {
        crypto_generichash(f.fingerprint.data(), f.fingerprint.size(), bytes, value.size(),
                           w->scratch->fingerprint_key, sizeof w->scratch->fingerprint_key);
      }
      w->found.push_back(f);
      return true;
    };
    const size_t floor = std::max<size_t>(min_length, 1);
    doberman::internal::ForEachCarriedValue(in, floor, on_value, &walk);
    const doberman::internal::DecodeLimits& limits = scratch->pack.limits.decode;
    std::string decoded;
    walk.decoded = 1;
    // The decision has usually just searched this text (the memo answers then).
    const doberman::internal::RunsToRescan& runs = scratch->views.runs.Find(in, limits);
    for (const doberman::internal::EncodedRun& run : runs.runs) {
      if (!walk.overflow && doberman::internal::DecodeRun(in, run, limits, &decoded))
        doberman::internal::ForEachCarriedValue(decoded, floor, on_value, &walk);
    }
    const bool too_many_runs = runs.overflow;
    for (const Found& f : walk.found) {
      if (f.wanted) fn(context, f.tag, f.fingerprint.data(), f.decoded);
    }
    if (walk.found.capacity() <= 64) spare = std::move(walk.found);
    return walk.overflow || too_many_runs ? DOBERMAN_E_LIMIT : DOBERMAN_OK;
  } catch (const std::bad_alloc&) {
    return DOBERMAN_E_NO_MEMORY;
  } catch (...) {
    return DOBERMAN_E_INTERNAL;
  }
}

}  // namespace

doberman_status doberman_value_fingerprints(doberman_scratch* scratch, doberman_string text,
                                            size_t min_length, size_t max_values,
                                            doberman_fingerprint_fn fn, void* context) {
  if (fn == nullptr) return DOBERMAN_E_ARGUMENT;
  struct Forward {
    doberman_fingerprint_fn fn;
    void* context;
  } forward{fn, context};
  return WalkValues(
      scratch, text, min_length, max_values, nullptr,
      [](void* ctx, uint64_t, const uint8_t fingerprint[16], int decoded) {
        auto* f = static_cast<Forward*>(ctx);
        f->fn(f->context, fingerprint, decoded);
      },
      &forward);
}

doberman_status doberman_value_tags(doberman_scratch* scratch, doberman_string text,
                                    size_t min_length, size_t max_values,
                                    doberman_tag_filter_fn filter, doberman_tagged_value_fn fn,
                                    void* context) {
  return WalkValues(scratch, text, min_length, max_values, filter, fn, context);
}

doberman_status doberman_value_tag(const doberman_scratch* scratch, doberman_string value,
                                   uint64_t* tag, uint8_t fingerprint[16]) {
  if (scratch == nullptr || tag == nullptr || fingerprint == nullptr ||
      (value.data == nullptr && value.size != 0)) {
    return DOBERMAN_E_ARGUMENT;
  }
  const std::string_view v(value.data == nullptr ? "" : value.data, value.size);
  *tag = ValueTag(scratch, v);
  crypto_generichash(fingerprint, 16, reinterpret_cast<const uint8_t*>(v.data()), v.size(),
                     scratch->fingerprint_key, sizeof scratch->fingerprint_key);
  return DOBERMAN_OK;
}
