// The Ed25519 keys that sign erasure certificates: a key ring of their own, not the region-token
// signer's, because a certificate must stay verifiable for as long as anyone keeps it, while
// region tokens live minutes. Kept in DATA_DIR (owner-only file, written to a temporary name
// and renamed). The newest key signs; after erasureKeyLifetimeDays a new key is made, and every
// older key stays in the file and in the published JWKS, so old certificates still verify.
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { exportJWK, generateKeyPair, importJWK, type JSONWebKeySet, type JWK } from "jose";
import { dayMs } from "../../clock.ts";

export const erasureKeyAlgorithm = "EdDSA";
/** A signing key is replaced after this long; it stays published for verification. */
export const erasureKeyLifetimeDays = 365;
export const erasureKeysFile = "erasure-certificate-keys.json";

interface StoredKey {
  kid: string;
  created_at: string;
  private_jwk: JWK;
  public_jwk: JWK;
}

interface StoredKeys {
  keys: StoredKey[];
}

async function newKey(now: number): Promise<StoredKey> {
  const pair = await generateKeyPair(erasureKeyAlgorithm, { crv: "Ed25519", extractable: true });
  return {
    kid: `erasure-${new Date(now).toISOString().slice(0, 10)}-${crypto.randomUUID().slice(0, 8)}`,
    created_at: new Date(now).toISOString(),
    private_jwk: await exportJWK(pair.privateKey),
    public_jwk: await exportJWK(pair.publicKey),
  };
}

function save(path: string, stored: StoredKeys): void {
  const temporary = `${path}.tmp`;
  writeFileSync(temporary, JSON.stringify(stored), { mode: 0o600 });
  renameSync(temporary, path);
}

export class ErasureKeyRing {
  private signingKey: { kid: string; key: CryptoKey } | null = null;

  private constructor(
    private readonly path: string,
    private stored: StoredKeys,
  ) {}

  /** Reads the ring, making its first key (or a fresh one when the newest is past its lifetime). */
  static async loadOrCreate(path: string, now = Date.now()): Promise<ErasureKeyRing> {
    const stored: StoredKeys = existsSync(path) ? JSON.parse(readFileSync(path, "utf8")) : { keys: [] };
    const ring = new ErasureKeyRing(path, stored);
    await ring.current(now);
    return ring;
  }

  /** Every key ever used, newest first: certificates name theirs with `kid`. */
  jwks(): JSONWebKeySet {
    return {
      keys: [...this.stored.keys].reverse().map((key) => ({ ...key.public_jwk, kid: key.kid, alg: erasureKeyAlgorithm, use: "sig" })),
    };
  }

  /** The key that signs now, replaced first when it has passed its lifetime. */
  async current(now = Date.now()): Promise<{ kid: string; key: CryptoKey }> {
    const newest = this.stored.keys.at(-1);
    if (!newest || Date.parse(newest.created_at) <= now - erasureKeyLifetimeDays * dayMs) {
      this.stored = { keys: [...this.stored.keys, await newKey(now)] };
      save(this.path, this.stored);
      this.signingKey = null;
    }
    const signer = this.stored.keys.at(-1)!;
    if (this.signingKey?.kid !== signer.kid) {
      this.signingKey = { kid: signer.kid, key: (await importJWK(signer.private_jwk, erasureKeyAlgorithm)) as CryptoKey };
    }
    return this.signingKey;
  }
}
