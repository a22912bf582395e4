// Test helper for white-box tests: loads a ctest fixture pack (the default pack built from packs/,
// or the mini pack of tests/data, signed with the fixture key under $DOBERMAN_TEST_PACKS) through
// the internal loader.
#ifndef DOBERMAN_TESTS_API_DEFAULT_TEST_PACK_H_
#define DOBERMAN_TESTS_API_DEFAULT_TEST_PACK_H_

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "key_file.h"
#include "pack.h"

namespace doberman::internal {

// The pack at `relative` under the fixture folder, or null with `*error` saying why.
inline std::unique_ptr<Pack> LoadTestPack(const std::string& relative, std::string* error) {
  const char* packs = std::getenv("DOBERMAN_TEST_PACKS");
  if (packs == nullptr) {
    *error = "DOBERMAN_TEST_PACKS is not set (run through ctest)";
    return nullptr;
  }
  doberman_public_key key{};
  if (!ReadPublicKeyFile(std::string(packs) + "/test.pub", &key, error)) return nullptr;
  std::ifstream in(std::string(packs) + "/" + relative, std::ios::binary);
  const std::vector<uint8_t> bytes{std::istreambuf_iterator<char>(in),
                                   std::istreambuf_iterator<char>()};
  LoadOptions options;
  options.trusted = {&key, 1};
  std::unique_ptr<Pack> pack;
  if (LoadPack(bytes, options, &pack, error) != DOBERMAN_OK) return nullptr;
  return pack;
}

inline std::unique_ptr<Pack> LoadDefaultTestPack(std::string* error) {
  return LoadTestPack("default/default.dpack", error);
}

}  // namespace doberman::internal

#endif  // DOBERMAN_TESTS_API_DEFAULT_TEST_PACK_H_
