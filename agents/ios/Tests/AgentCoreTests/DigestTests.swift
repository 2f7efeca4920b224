import AgentCore
import XCTest

final class DigestTests: XCTestCase {
    private func hex(_ s: String, _ f: ([UInt8]) -> [UInt8]) -> String { Digest.hex(f(Array(s.utf8))) }

    func testSha1MatchesRfc3174AndFips180Vectors() {
        XCTAssertEqual(hex("abc", Digest.sha1), "a9993e364706816aba3e25717850c26c9cd0d89d")
        XCTAssertEqual(hex("", Digest.sha1), "da39a3ee5e6b4b0d3255bfef95601890afd80709")
        XCTAssertEqual(hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", Digest.sha1),
                       "84983e441c3bd26ebaae4aa1f95129e5e54670f1")
        XCTAssertEqual(Digest.hex(Digest.sha1([UInt8](repeating: 0x61, count: 1_000_000))),
                       "34aa973cd4c4daa4f61eeb2bdbad27316534016f")
    }

    func testSha256MatchesFips180Vectors() {
        XCTAssertEqual(hex("abc", Digest.sha256), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(hex("", Digest.sha256), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        XCTAssertEqual(hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", Digest.sha256),
                       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        // 55, 56 and 64 bytes: the padding boundaries.
        XCTAssertEqual(hex(String(repeating: "a", count: 55), Digest.sha256),
                       "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318")
        XCTAssertEqual(hex(String(repeating: "a", count: 56), Digest.sha256),
                       "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a")
        XCTAssertEqual(hex(String(repeating: "a", count: 64), Digest.sha256),
                       "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb")
    }

    func testBase64MatchesRfc4648Vectors() {
        let vectors = ["": "", "f": "Zg==", "fo": "Zm8=", "foo": "Zm9v", "foob": "Zm9vYg==", "fooba": "Zm9vYmE=",
                       "foobar": "Zm9vYmFy"]
        for (plain, coded) in vectors {
            XCTAssertEqual(Base64.encode(Array(plain.utf8)), coded)
            XCTAssertEqual(Base64.decode(coded), Array(plain.utf8))
        }
        let all = (0...255).map { UInt8($0) }
        XCTAssertEqual(Base64.decode(Base64.encode(all)), all)
    }

    func testBase64DecodingIsStrict() {
        for bad in ["Zg", "Zg=", "Z===", "Zm9v!A==", "Zm=v", "Zh==", "Zm9=", "Zm8=Zm8="] {
            XCTAssertNil(Base64.decode(bad), bad)
        }
    }

    func testAcceptKeyMatchesRfc6455Example() {
        XCTAssertEqual(WsHandshake.acceptKey("dGhlIHNhbXBsZSBub25jZQ=="), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    }

    func testTokenCheckAcceptsOnlyTheExactToken() throws {
        let t = try TokenCheck("s3cret")
        XCTAssertTrue(t.matches("s3cret"))
        XCTAssertFalse(t.matches("s3cre"))
        XCTAssertFalse(t.matches("s3cret "))
        XCTAssertFalse(t.matches(""))
        XCTAssertFalse(t.matches(nil))
        XCTAssertThrowsError(try TokenCheck(""))
    }
}
