// Loading a signed pack with a list of trusted key files: the one sequence every front end needs
// (the guard's modes, install's check, doctor, the Python module). Fail closed: on any error the
// pack is null and `status` and `error` say why.
#ifndef DOBERMAN_GUARD_PACK_LOADING_H_
#define DOBERMAN_GUARD_PACK_LOADING_H_

#include <cstdint>
#include <string>
#include <vector>

#include "doberman/doberman.h"

namespace doberman::guard {

struct PackLoadResult {
  doberman_pack* pack = nullptr;  // owned by the caller (doberman_pack_free)
  std::string status = "DOBERMAN_OK";
  std::string error;
};

// The key files $DOBERMAN_PUBKEY names (':'-separated, empty parts skipped); empty when unset.
std::vector<std::string> PublicKeysFromEnvironment();

// `state`: the rollback record (empty: none). `fields`: doberman_load_options.fields (0: all).
// `image_cache`: doberman_load_options.image_cache_dir (empty: none).
PackLoadResult LoadPackWithKeys(const std::string& path, const std::vector<std::string>& pubkeys,
                                const std::string& state, uint32_t fields,
                                const std::string& image_cache = "");

// The image cache a one-shot process uses: `given` (--image-cache), else $DOBERMAN_IMAGE_CACHE,
// else $XDG_CACHE_HOME/doberman/images ($HOME/.cache/... when unset; the default pack refuses
// agents' writes there); "off" from either means none, returned as empty. Not in the state
// directory: that one holds session memory only, and its promise is that nothing there reads as
// text from a call.
std::string ResolveImageCache(const std::string& given);

}  // namespace doberman::guard

#endif  // DOBERMAN_GUARD_PACK_LOADING_H_
