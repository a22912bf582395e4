// Key files, then the pack (pack_loading.h).
#include "pack_loading.h"

#include <cstdlib>

namespace doberman::guard {

std::vector<std::string> PublicKeysFromEnvironment() {
  std::vector<std::string> keys;
  const char* env = std::getenv("DOBERMAN_PUBKEY");
  const std::string s = env != nullptr ? env : "";
  size_t start = 0;
  while (start < s.size()) {
    size_t colon = s.find(':', start);
    if (colon == std::string::npos) colon = s.size();
    if (colon > start) keys.push_back(s.substr(start, colon - start));
    start = colon + 1;
  }
  return keys;
}

std::string ResolveImageCache(const std::string& given) {
  if (!given.empty()) return given == "off" ? "" : given;
  if (const char* e = std::getenv("DOBERMAN_IMAGE_CACHE")) return std::string(e) == "off" ? "" : e;
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg != nullptr && xdg[0] == '/') return std::string(xdg) + "/doberman/images";
  const char* home = std::getenv("HOME");
  if (home != nullptr && home[0] == '/') return std::string(home) + "/.cache/doberman/images";
  return "";
}

PackLoadResult LoadPackWithKeys(const std::string& path, const std::vector<std::string>& pubkeys,
                                const std::string& state, uint32_t fields,
                                const std::string& image_cache) {
  PackLoadResult r;
  if (path.empty()) {
    r.status = "DOBERMAN_E_NO_PACK";
    r.error = "no pack configured (--pack or DOBERMAN_PACK)";
    return r;
  }
  if (pubkeys.empty()) {
    r.status = "DOBERMAN_E_UNKNOWN_KEY";
    r.error = "no trusted public key configured (--pubkey or DOBERMAN_PUBKEY)";
    return r;
  }
  std::vector<doberman_public_key> keys(pubkeys.size());
  char buf[512] = {0};
  for (size_t i = 0; i < pubkeys.size(); ++i) {
    if (doberman_public_key_read_file(pubkeys[i].c_str(), &keys[i], buf, sizeof buf) !=
        DOBERMAN_OK) {
      r.status = "DOBERMAN_E_IO";
      r.error = buf;
      return r;
    }
  }
  doberman_load_options options{};
  options.struct_size = sizeof options;
  options.trusted_keys = keys.data();
  options.trusted_key_count = keys.size();
  options.state_path = state.empty() ? nullptr : state.c_str();
  options.fields = fields;
  options.image_cache_dir = image_cache.empty() ? nullptr : image_cache.c_str();
  const doberman_status s =
      doberman_pack_load_file(path.c_str(), &options, &r.pack, buf, sizeof buf);
  if (s != DOBERMAN_OK) {
    r.pack = nullptr;
    r.status = doberman_status_name(s);
    r.error = "pack " + path + " refused: " + buf;
  }
  return r;
}

}  // namespace doberman::guard
