// doberman-pack-stats: what a pack costs to hold: file size, Hyperscan database and scratch sizes,
// load time (doberman_pack_load_file and doberman_pack_load_memory: signature check, FlatBuffers
// verification, database deserialization, table decoding) and the resident memory of a fresh
// process after loading it.
//
//   doberman-pack-stats --pack P --pubkey K [--runs N] [--json OUT.json]
//
// RSS is read from /proc/self/status before anything is loaded and after the first load plus one
// scratch, in this fresh process; load times are medians over N loads (the file is in the page
// cache).
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include <sodium.h>
#include "bench_support.h"

#include "decider.h"
#include "envelope.h"
#include "key_file.h"
#include "lz4_block.h"
#include "pack_generated.h"

namespace doberman::bench {
namespace {

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

int Main(int argc, char** argv) {
  std::string pack_path, pubkey, json_out;
  int runs = 50;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--pack")
      pack_path = argv[i + 1];
    else if (a == "--pubkey")
      pubkey = argv[i + 1];
    else if (a == "--runs")
      runs = std::stoi(argv[i + 1]);
    else if (a == "--json")
      json_out = argv[i + 1];
  }
  if (pack_path.empty() || pubkey.empty()) {
    std::fputs("usage: doberman-pack-stats --pack P --pubkey K [--runs N] [--json OUT]\n", stderr);
    return 2;
  }
  const size_t rss_before = CurrentRssBytes();
  uint64_t t0 = NowNs();
  LoadedPack first;
  if (!LoadPack(pack_path, pubkey, &first)) return 1;
  const double first_load_ms = static_cast<double>(NowNs() - t0) / 1e6;
  const size_t rss_after = CurrentRssBytes();

  const internal::Pack& pack = first.internal();
  size_t db_bytes = 0, scratch_bytes = 0, databases = 0;
  std::vector<const hs_database_t*> seen;  // scopes may share a database
  for (const auto& d : pack.databases) {
    seen.push_back(d->db);
    ++databases;
    size_t n = 0;
    if (hs_database_size(d->db, &n) == HS_SUCCESS) db_bytes += n;
  }
  for (const hs_scratch_t* s : first.scratch->hs) {
    size_t n = 0;
    if (s != nullptr && hs_scratch_size(s, &n) == HS_SUCCESS) scratch_bytes += n;
  }

  doberman_public_key key;
  std::string error;
  internal::ReadPublicKeyFile(pubkey, &key, &error);
  doberman_load_options options{};
  options.struct_size = sizeof options;
  options.trusted_keys = &key;
  options.trusted_key_count = 1;
  std::string bytes;
  ReadFile(pack_path, &bytes);

  // Breakdown: the envelope's signature check alone (header and tables), and scratch allocation
  // over each database once (what doberman_scratch_create does) against once per scope serving it
  // (hs_alloc_scratch re-checks a database each time it is called).
  std::vector<double> verify_ms, scratch_distinct_ms, scratch_per_scope_ms, sha512_ms, blake2b_ms,
      decode_ms;
  size_t stored_db_bytes = 0;
  std::vector<uint8_t> decoded;
  const std::span<const uint8_t> span(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  for (int i = 0; i < runs; ++i) {
    internal::EnvelopeHeader header;
    internal::EnvelopeParts parts;
    uint64_t a = NowNs();
    if (internal::OpenEnvelope(span, {&key, 1}, &header, &parts, &error) != DOBERMAN_OK) return 1;
    verify_ms.push_back(static_cast<double>(NowNs() - a) / 1e6);
    // What envelope v1 cost (Ed25519's SHA-512 over every byte) against BLAKE2b over the stored
    // database blobs (the signature itself covers the tables only).
    uint8_t digest[64];
    a = NowNs();
    crypto_hash_sha512(digest, span.data(), span.size());
    sha512_ms.push_back(static_cast<double>(NowNs() - a) / 1e6);
    a = NowNs();
    crypto_generichash(digest, 32, parts.blobs.data(), parts.blobs.size(), nullptr, 0);
    blake2b_ms.push_back(static_cast<double>(NowNs() - a) / 1e6);
    // Decoding every database stored as an LZ4 block, on one thread (what loading adds in exchange
    // for hashing the smaller stored bytes).
    stored_db_bytes = parts.blobs.size();
    const fb::Pack* tables = fb::GetPack(parts.payload.data());
    a = NowNs();
    for (const fb::Database* d : *tables->databases()) {
      if (d->encoding() != fb::BlobEncoding::Lz4Block) continue;
      decoded.resize(d->raw_size());
      if (!internal::DecodeLz4Block(parts.blobs.subspan(d->blob_offset(), d->blob_size()), decoded))
        return 1;
    }
    decode_ms.push_back(static_cast<double>(NowNs() - a) / 1e6);
    hs_scratch_t* scratch = nullptr;
    a = NowNs();
    for (const hs_database_t* db : seen) hs_alloc_scratch(db, &scratch);
    scratch_distinct_ms.push_back(static_cast<double>(NowNs() - a) / 1e6);
    hs_free_scratch(scratch);
    scratch = nullptr;
    a = NowNs();
    for (const internal::ScopeDb& s : pack.scopes) {
      for (const internal::PackDatabase* d : s.dbs) hs_alloc_scratch(d->db, &scratch);
    }
    scratch_per_scope_ms.push_back(static_cast<double>(NowNs() - a) / 1e6);
    hs_free_scratch(scratch);
  }

  // What a Bash hook loads: the tool and command databases only (doberman_load_options.fields).
  std::vector<double> bash_file_ms;
  doberman_load_options bash_options = options;
  bash_options.fields = (1u << DOBERMAN_FIELD_TOOL) | (1u << DOBERMAN_FIELD_COMMAND);
  for (int i = 0; i < runs; ++i) {
    doberman_pack* p = nullptr;
    const uint64_t a = NowNs();
    if (doberman_pack_load_file(pack_path.c_str(), &bash_options, &p, nullptr, 0) != DOBERMAN_OK)
      return 1;
    bash_file_ms.push_back(static_cast<double>(NowNs() - a) / 1e6);
    doberman_pack_free(p);
  }

  std::vector<double> file_ms, memory_ms, scratch_ms;
  for (int i = 0; i < runs; ++i) {
    doberman_pack* p = nullptr;
    uint64_t a = NowNs();
    if (doberman_pack_load_file(pack_path.c_str(), &options, &p, nullptr, 0) != DOBERMAN_OK)
      return 1;
    uint64_t b = NowNs();
    doberman_scratch* s = nullptr;
    doberman_scratch_create(p, &s);
    uint64_t c = NowNs();
    file_ms.push_back(static_cast<double>(b - a) / 1e6);
    scratch_ms.push_back(static_cast<double>(c - b) / 1e6);
    doberman_scratch_free(s);
    doberman_pack_free(p);
    a = NowNs();
    if (doberman_pack_load_memory(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(),
                                  &options, &p, nullptr, 0) != DOBERMAN_OK) {
      return 1;
    }
    b = NowNs();
    memory_ms.push_back(static_cast<double>(b - a) / 1e6);
    doberman_pack_free(p);
  }
  char buf[2048];
  std::snprintf(
      buf, sizeof buf,
      "{\"rules\":%zu,\"patterns\":%zu,\"file_bytes\":%zu,\"databases\":%zu,\"database_bytes\":%zu,"
      "\"scratch_bytes\":%zu,\"first_load_ms\":%.4f,\"load_file_ms\":%.4f,\"load_memory_ms\":%.4f,"
      "\"scratch_create_ms\":%.4f,\"verify_ms\":%.4f,\"scratch_distinct_dbs_ms\":%.4f,"
      "\"scratch_per_scope_ms\":%.4f,\"sha512_ms\":%.4f,\"blake2b_ms\":%.4f,\"load_bash_fields_"
      "ms\":%.4f,\"stored_database_bytes\":%zu,\"lz4_decode_ms\":%.4f,"
      "\"rss_before_bytes\":%zu,\"rss_after_load_bytes\":%zu}\n",
      pack.rules.size(), pack.patterns.size(), bytes.size(), databases, db_bytes, scratch_bytes,
      first_load_ms, Median(file_ms), Median(memory_ms), Median(scratch_ms), Median(verify_ms),
      Median(scratch_distinct_ms), Median(scratch_per_scope_ms), Median(sha512_ms),
      Median(blake2b_ms), Median(bash_file_ms), stored_db_bytes, Median(decode_ms), rss_before,
      rss_after);
  std::fputs(buf, stderr);
  if (!json_out.empty() && !WriteFile(json_out, buf)) return 1;
  return 0;
}

}  // namespace
}  // namespace doberman::bench

int main(int argc, char** argv) { return doberman::bench::Main(argc, argv); }
