// The Ed25519 key pair that signs region tokens. Generated on first start and kept in
// DATA_DIR (owner-only file); the public half is published as a JWKS so regions, and
// anyone else, can verify tokens offline.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { SignJWT, exportJWK, generateKeyPair, importJWK, type JWK, type JSONWebKeySet } from "jose";

export const regionTokenAlgorithm = "EdDSA";

interface StoredKeyPair {
  kid: string;
  privateJwk: JWK;
  publicJwk: JWK;
}

export class RegionTokenSigner {
  private constructor(
    private readonly kid: string,
    private readonly privateKey: CryptoKey,
    private readonly publicJwk: JWK,
  ) {}

  static async loadOrCreate(path: string): Promise<RegionTokenSigner> {
    let stored: StoredKeyPair;
    if (existsSync(path)) {
      stored = JSON.parse(readFileSync(path, "utf8"));
    } else {
      const pair = await generateKeyPair(regionTokenAlgorithm, { crv: "Ed25519", extractable: true });
      stored = {
        kid: crypto.randomUUID(),
        privateJwk: await exportJWK(pair.privateKey),
        publicJwk: await exportJWK(pair.publicKey),
      };
      writeFileSync(path, JSON.stringify(stored), { mode: 0o600 });
    }
    const privateKey = (await importJWK(stored.privateJwk, regionTokenAlgorithm)) as CryptoKey;
    return new RegionTokenSigner(stored.kid, privateKey, stored.publicJwk);
  }

  jwks(): JSONWebKeySet {
    return { keys: [{ ...this.publicJwk, kid: this.kid, alg: regionTokenAlgorithm, use: "sig" }] };
  }

  sign(claims: Record<string, unknown>, options: { issuer: string; audience: string; subject: string; expiresAt: Date }) {
    return new SignJWT(claims)
      .setProtectedHeader({ alg: regionTokenAlgorithm, kid: this.kid, typ: "JWT" })
      .setIssuer(options.issuer)
      .setAudience(options.audience)
      .setSubject(options.subject)
      .setIssuedAt()
      .setJti(crypto.randomUUID())
      .setExpirationTime(Math.floor(options.expiresAt.getTime() / 1000))
      .sign(this.privateKey);
  }
}
