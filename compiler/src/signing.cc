// Ed25519 via libsodium. Secret key material is wiped when it goes out of scope.
#include "signing.h"

#include <fcntl.h>
#include <sodium.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fstream>
#include <sstream>

#include "key_file.h"

namespace doberman::compiler {

SigningKey::~SigningKey() { sodium_memzero(secret.data(), secret.size()); }

namespace {

// The temporary file being written, for the signal handler: a build interrupted (Ctrl-C, kill, a
// file size limit) must not leave a partial pack behind, even under its temporary name.
char g_pending_tmp[4096];
volatile sig_atomic_t g_pending = 0;

extern "C" void RemovePendingAndReraise(int sig) {
  if (g_pending) ::unlink(g_pending_tmp);
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

// Installs the handlers for the duration of one write, and restores the previous ones after.
class PendingTmpFile {
 public:
  explicit PendingTmpFile(const std::string& tmp) {
    if (tmp.size() < sizeof g_pending_tmp) {
      std::memcpy(g_pending_tmp, tmp.c_str(), tmp.size() + 1);
      g_pending = 1;
    }
    struct sigaction sa {};
    sa.sa_handler = RemovePendingAndReraise;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < kSignals.size(); ++i) {
      // SIGXFSZ (a write past RLIMIT_FSIZE) is ignored instead, so write() fails with EFBIG and the
      // usual error path removes the file and reports it.
      sa.sa_handler = kSignals[i] == SIGXFSZ ? SIG_IGN : RemovePendingAndReraise;
      ::sigaction(kSignals[i], &sa, &previous_[i]);
    }
  }
  ~PendingTmpFile() {
    for (size_t i = 0; i < kSignals.size(); ++i) ::sigaction(kSignals[i], &previous_[i], nullptr);
    g_pending = 0;
  }
  PendingTmpFile(const PendingTmpFile&) = delete;
  PendingTmpFile& operator=(const PendingTmpFile&) = delete;

 private:
  static constexpr std::array<int, 5> kSignals = {SIGINT, SIGTERM, SIGHUP, SIGXFSZ, SIGPIPE};
  std::array<struct sigaction, 5> previous_{};
};

}  // namespace

bool WriteFileAtomic(const std::string& path, std::span<const uint8_t> bytes, unsigned mode,
                     std::string* error) {
  std::string tmp = path + ".tmp." + std::to_string(getpid());
  PendingTmpFile pending(tmp);
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
  if (fd < 0) {
    *error = "cannot create " + tmp + ": " + std::strerror(errno);
    return false;
  }
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  bool ok = done == bytes.size() && ::fchmod(fd, mode) == 0 && ::fsync(fd) == 0;
  ok = (::close(fd) == 0) && ok;
  if (!ok || std::rename(tmp.c_str(), path.c_str()) != 0) {
    *error = "cannot write " + path + ": " + std::strerror(errno);
    ::unlink(tmp.c_str());
    return false;
  }
  return true;
}

bool GenerateKeyPair(const std::string& base, bool force, std::string* key_id, std::string* error) {
  if (sodium_init() < 0) {
    *error = "libsodium failed to initialise";
    return false;
  }
  SigningKey key;
  crypto_sign_keypair(key.public_key.data(), key.secret.data());
  const std::string secret_path = base + ".key", public_path = base + ".pub";
  struct stat st;
  if (!force && (::stat(secret_path.c_str(), &st) == 0 || ::stat(public_path.c_str(), &st) == 0)) {
    *error = secret_path + " or " + public_path + " already exists (use --force to replace)";
    return false;
  }
  std::string secret_text = internal::FormatKeyText(internal::kSecretKeyHeader, key.secret.data(),
                                                    key.secret.size(), key.public_key.data());
  std::string public_text =
      internal::FormatKeyText(internal::kPublicKeyHeader, key.public_key.data(),
                              key.public_key.size(), key.public_key.data());
  bool ok =
      WriteFileAtomic(secret_path,
                      {reinterpret_cast<const uint8_t*>(secret_text.data()), secret_text.size()},
                      0600, error) &&
      WriteFileAtomic(public_path,
                      {reinterpret_cast<const uint8_t*>(public_text.data()), public_text.size()},
                      0644, error);
  sodium_memzero(secret_text.data(), secret_text.size());
  *key_id = internal::KeyIdHex(key.public_key.data());
  return ok;
}

void EphemeralKey(SigningKey* key) {
  if (sodium_init() < 0) return;
  crypto_sign_keypair(key->public_key.data(), key->secret.data());
}

bool LoadSigningKey(const std::string& path, SigningKey* key, std::string* error) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    *error = "cannot open secret key " + path + ": " + std::strerror(errno);
    return false;
  }
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    ::close(fd);
    *error = "cannot stat " + path;
    return false;
  }
  if ((st.st_mode & 077) != 0) {
    ::close(fd);
    char mode[8];
    snprintf(mode, sizeof mode, "%04o", st.st_mode & 07777);
    *error = "secret key " + path + " is readable by others (mode " + mode + "); run `chmod 600 " +
             path + "`";
    return false;
  }
  std::string text(static_cast<size_t>(st.st_size), '\0');
  ssize_t n = ::read(fd, text.data(), text.size());
  ::close(fd);
  if (n != static_cast<ssize_t>(text.size())) {
    *error = "cannot read " + path;
    return false;
  }
  bool ok = internal::ParseKeyText(text, internal::kSecretKeyHeader, key->secret.data(),
                                   key->secret.size(), error);
  sodium_memzero(text.data(), text.size());
  if (!ok) {
    *error = path + ": " + *error;
    return false;
  }
  crypto_sign_ed25519_sk_to_pk(key->public_key.data(), key->secret.data());
  return true;
}

std::vector<uint8_t> SealPack(internal::EnvelopeHeader header, std::span<const uint8_t> payload,
                              std::span<const uint8_t> blobs, const SigningKey& key) {
  header.key_id = internal::ComputeKeyId(key.public_key.data());
  header.payload_size = payload.size();
  header.blobs_size = blobs.size();
  std::array<uint8_t, internal::kHeaderSize> head{};
  internal::EncodeHeader(header, &head);
  // header | payload | signature | blobs
  std::vector<uint8_t> out(head.size() + payload.size() + internal::kSignatureSize + blobs.size());
  uint8_t* p = out.data();
  std::memcpy(p, head.data(), head.size());
  p += head.size();
  if (!payload.empty()) std::memcpy(p, payload.data(), payload.size());
  p += payload.size();
  const auto message = internal::SignedMessage(head, payload);
  crypto_sign_detached(p, nullptr, message.data(), message.size(), key.secret.data());
  p += internal::kSignatureSize;
  if (!blobs.empty()) std::memcpy(p, blobs.data(), blobs.size());
  return out;
}

}  // namespace doberman::compiler
