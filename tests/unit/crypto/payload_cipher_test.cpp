#include "crypto/payload_cipher.h"

#include <set>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace queen::crypto {
namespace {

const std::string kKeyA = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
const std::string kKeyB = "F0E1D2C3B4A5968778695A4B3C2D1E0F00112233445566778899AABBCCDDEEFF";

PayloadKey key(const std::string& hex) {
  KeyParseResult parsed = parse_key_hex(hex);
  EXPECT_TRUE(parsed.key.has_value()) << parsed.problem;
  return *parsed.key;
}

PayloadCipher cipher(const std::string& current, const std::string& previous = "") {
  CipherFromConfig built = cipher_from_config(current, previous);
  EXPECT_TRUE(built.errors.empty());
  return std::move(built.cipher);
}

// The envelope with one base64 field replaced by `mutate` applied to its bytes.
std::string tamper(const std::string& envelope, const char* field, void (*mutate)(std::vector<unsigned char>&)) {
  nlohmann::json j = nlohmann::json::parse(envelope);
  auto bytes = *base64_decode(j[field].get<std::string>());
  mutate(bytes);
  j[field] = base64_encode(bytes.data(), bytes.size());
  return j.dump();
}

void flip_first_bit(std::vector<unsigned char>& bytes) { bytes.at(0) ^= 0x01; }

TEST(PayloadCipher, RoundTripRestoresThePayloadTextByteForByte) {
  const PayloadCipher c = cipher(kKeyA);
  for (const std::string& plaintext :
       {std::string(R"({"a":1,  "b" : [1,2 ,3]})"), std::string("null"), std::string(R"("x")"),
        std::string(R"({"text":"héllo wörld ✓ 日本語 🚀"})"), std::string()}) {
    const std::string envelope = c.encrypt(plaintext);
    const DecryptResult opened = c.decrypt(envelope);
    ASSERT_TRUE(opened.ok) << opened.error;
    EXPECT_EQ(opened.plaintext, plaintext);
  }
}

TEST(PayloadCipher, LargePayloadRoundTrips) {
  const PayloadCipher c = cipher(kKeyA);
  std::string big = "\"";
  big.append(4 * 1024 * 1024, 'z');
  big += '"';
  const DecryptResult opened = c.decrypt(c.encrypt(big));
  ASSERT_TRUE(opened.ok) << opened.error;
  EXPECT_EQ(opened.plaintext, big);
}

TEST(PayloadCipher, EnvelopeHidesThePlaintextAndNamesTheKeyById) {
  const PayloadCipher c = cipher(kKeyA);
  const std::string envelope = c.encrypt(R"({"secret":"swordfish"})");
  EXPECT_EQ(envelope.find("swordfish"), std::string::npos);
  const nlohmann::json j = nlohmann::json::parse(envelope);
  EXPECT_EQ(j["v"], 1);
  EXPECT_EQ(j["kid"], key(kKeyA).id);
  EXPECT_EQ(j["kid"].get<std::string>().size(), kKeyIdHexChars);
  EXPECT_EQ(envelope.find(kKeyA), std::string::npos);
  EXPECT_EQ(base64_decode(j["iv"].get<std::string>())->size(), kNonceBytes);
  EXPECT_EQ(base64_decode(j["tag"].get<std::string>())->size(), kTagBytes);
}

TEST(PayloadCipher, EveryMessageGetsAFreshNonce) {
  const PayloadCipher c = cipher(kKeyA);
  std::set<std::string> nonces;
  std::set<std::string> ciphertexts;
  for (int i = 0; i < 200; ++i) {
    const nlohmann::json j = nlohmann::json::parse(c.encrypt(R"({"same":true})"));
    nonces.insert(j["iv"].get<std::string>());
    ciphertexts.insert(j["ct"].get<std::string>());
  }
  EXPECT_EQ(nonces.size(), 200u);
  EXPECT_EQ(ciphertexts.size(), 200u);
}

TEST(PayloadCipher, TamperedCiphertextTagOrNonceIsDetected) {
  const PayloadCipher c = cipher(kKeyA);
  const std::string envelope = c.encrypt(R"({"amount":100})");
  for (const char* field : {"ct", "tag", "iv"}) {
    const DecryptResult opened = c.decrypt(tamper(envelope, field, flip_first_bit));
    EXPECT_FALSE(opened.ok) << field;
    EXPECT_TRUE(opened.plaintext.empty()) << field;
    EXPECT_NE(opened.error.find("authentication failed"), std::string::npos) << field << ": " << opened.error;
  }
  // A truncated tag or nonce is malformed, not silently accepted.
  const DecryptResult short_tag =
      c.decrypt(tamper(envelope, "tag", [](std::vector<unsigned char>& b) { b.pop_back(); }));
  EXPECT_FALSE(short_tag.ok);
  EXPECT_NE(short_tag.error.find("malformed"), std::string::npos);
}

TEST(PayloadCipher, AnotherKeyCannotOpenTheEnvelope) {
  const std::string envelope = cipher(kKeyA).encrypt(R"({"x":1})");
  const DecryptResult opened = cipher(kKeyB).decrypt(envelope);
  EXPECT_FALSE(opened.ok);
  EXPECT_NE(opened.error.find("unknown key id"), std::string::npos);

  // A forged kid naming the wrong key still fails on the tag.
  nlohmann::json j = nlohmann::json::parse(envelope);
  j["kid"] = key(kKeyB).id;
  const DecryptResult forged = cipher(kKeyB).decrypt(j.dump());
  EXPECT_FALSE(forged.ok);
  EXPECT_NE(forged.error.find("authentication failed"), std::string::npos);
}

TEST(PayloadCipher, PreviousKeyOpensOlderEnvelopesAndNewOnesUseTheCurrentKey) {
  const std::string old_envelope = cipher(kKeyA).encrypt(R"({"era":"old"})");
  const PayloadCipher rotated = cipher(kKeyB, kKeyA);
  const DecryptResult opened = rotated.decrypt(old_envelope);
  ASSERT_TRUE(opened.ok) << opened.error;
  EXPECT_EQ(opened.plaintext, R"({"era":"old"})");
  const nlohmann::json fresh = nlohmann::json::parse(rotated.encrypt("{}"));
  EXPECT_EQ(fresh["kid"], key(kKeyB).id);
  // Without the previous key the old envelope is unreadable.
  EXPECT_FALSE(cipher(kKeyB).decrypt(old_envelope).ok);
}

TEST(PayloadCipher, MalformedKeysAreRefusedWithoutQuotingThem) {
  const std::string secretish = "zz" + kKeyA.substr(2);
  for (const std::string& bad : {kKeyA.substr(0, 63), kKeyA + "0", secretish, std::string(64, ' '),
                                 kKeyA.substr(0, 62) + "-1"}) {
    const KeyParseResult parsed = parse_key_hex(bad);
    EXPECT_FALSE(parsed.key.has_value()) << bad;
    EXPECT_FALSE(parsed.problem.empty());
    const CipherFromConfig built = cipher_from_config(bad, "");
    EXPECT_FALSE(built.cipher.enabled());
    ASSERT_EQ(built.errors.size(), 1u);
    EXPECT_EQ(built.errors[0].find(bad), std::string::npos);
    EXPECT_EQ(built.errors[0].rfind("QUEEN_ENCRYPTION_KEY=*** ", 0), 0u) << built.errors[0];
  }
}

TEST(PayloadCipher, NoKeyMeansOffAndAMalformedPreviousKeyIsAnErrorNotIgnored) {
  const CipherFromConfig none = cipher_from_config("", "");
  EXPECT_FALSE(none.cipher.enabled());
  EXPECT_TRUE(none.errors.empty());
  EXPECT_FALSE(none.cipher.decrypt(R"({"v":1,"kid":"x","iv":"","ct":"","tag":""})").ok);

  const CipherFromConfig bad_previous = cipher_from_config(kKeyA, "beef");
  EXPECT_FALSE(bad_previous.cipher.enabled());
  ASSERT_EQ(bad_previous.errors.size(), 1u);
  EXPECT_EQ(bad_previous.errors[0].find("beef"), std::string::npos);
  EXPECT_EQ(bad_previous.errors[0].rfind("QUEEN_ENCRYPTION_KEY_PREVIOUS=*** ", 0), 0u) << bad_previous.errors[0];

  const CipherFromConfig both_bad = cipher_from_config("abc", "beef");
  EXPECT_EQ(both_bad.errors.size(), 2u);
}

TEST(PayloadCipher, GarbageEnvelopesAreErrorsNeverCrashes) {
  const PayloadCipher c = cipher(kKeyA);
  const std::string kid = key(kKeyA).id;
  for (const std::string& garbage :
       {std::string(), std::string("{"), std::string("[]"), std::string("\"text\""), std::string("{}"),
        std::string(R"({"v":2,"kid":")" + kid + R"(","iv":"AAAAAAAAAAAAAAAA","ct":"","tag":"AAAAAAAAAAAAAAAAAAAAAA=="})"),
        std::string(R"({"v":1,"kid":7,"iv":"AAAAAAAAAAAAAAAA","ct":"","tag":"AAAAAAAAAAAAAAAAAAAAAA=="})"),
        std::string(R"({"v":1,"kid":")" + kid + R"(","iv":"not base64!","ct":"","tag":"AAAAAAAAAAAAAAAAAAAAAA=="})"),
        std::string(R"({"v":1,"kid":")" + kid + R"(","iv":"AAAAAAAAAAAAAAAA","ct":"A===","tag":"AAAAAAAAAAAAAAAAAAAAAA=="})"),
        std::string(R"({"v":1,"kid":")" + kid + R"(","iv":"AAAAAAAAAAAAAAAA","ct":"","tag":"AAAAAAAAAAAAAAAAAAAAAA=="})"),
        std::string(R"({"v":1,"kid":")" + kid + R"(","iv":"AAAAAAAAAAAAAAAA","ct":"AA==AA==","tag":"AAAAAAAAAAAAAAAAAAAAAA=="})")}) {
    const DecryptResult opened = c.decrypt(garbage);
    EXPECT_FALSE(opened.ok) << garbage;
    EXPECT_FALSE(opened.error.empty()) << garbage;
  }
}

TEST(Base64, RoundTripsAndRefusesNonCanonicalText) {
  for (std::size_t n = 0; n < 10; ++n) {
    std::vector<unsigned char> bytes(n);
    for (std::size_t i = 0; i < n; ++i) bytes[i] = static_cast<unsigned char>(0xf0 + i);
    const auto decoded = base64_decode(base64_encode(bytes.data(), bytes.size()));
    ASSERT_TRUE(decoded.has_value());
    EXPECT_EQ(*decoded, bytes);
  }
  EXPECT_FALSE(base64_decode("abc").has_value());
  EXPECT_FALSE(base64_decode("a=bc").has_value());
  EXPECT_FALSE(base64_decode("ab\ncd==").has_value());
}

}  // namespace
}  // namespace queen::crypto
