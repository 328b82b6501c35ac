// Fuzzes payload decryption (src/crypto/payload_cipher.*): the envelope a pop or the DLQ listing reads back from
// PostgreSQL, which anyone with write access to the database could have changed. Input: the first byte chooses
// the mode; the rest is the text.
//   mode even: the text is an envelope; decrypt must answer (never throw, never crash), and only an envelope
//              naming one of the two keys can open.
//   mode odd:  the text is a plaintext; encrypt then decrypt must give it back byte for byte, and one changed
//              byte of the envelope's ciphertext must be detected.

#include <string>

#include "crypto/payload_cipher.h"
#include "fuzz_support.h"

using namespace queen;

namespace {

const crypto::PayloadCipher& cipher() {
  static const crypto::PayloadCipher instance = [] {
    crypto::CipherFromConfig built =
        crypto::cipher_from_config("00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff",
                                   "ffeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100");
    FUZZ_CHECK(built.cipher.enabled() && built.errors.empty(), "the fixed keys were refused");
    return std::move(built.cipher);
  }();
  return instance;
}

void check_round_trip(std::string_view plaintext) {
  const std::string envelope = cipher().encrypt(plaintext);
  const crypto::DecryptResult opened = cipher().decrypt(envelope);
  FUZZ_CHECK(opened.ok && opened.plaintext == plaintext, "round trip failed: %s", opened.error.c_str());
  // The ciphertext field starts after "ct":"; change its first character to another base64 one.
  const std::size_t ct = envelope.find("\"ct\":\"") + 6;
  if (envelope[ct] == '"') return;  // empty plaintext: no ciphertext byte to change
  std::string tampered = envelope;
  tampered[ct] = tampered[ct] == 'A' ? 'B' : 'A';
  FUZZ_CHECK(!cipher().decrypt(tampered).ok, "a changed ciphertext was accepted");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::quiet_logs();
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (data[0] % 2 == 1) {
    check_round_trip(text);
    return 0;
  }
  const crypto::DecryptResult opened = cipher().decrypt(text);
  FUZZ_CHECK(opened.ok != !opened.error.empty(), "a result must be either plaintext or an error");
  return 0;
}
