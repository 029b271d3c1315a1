// The bootstrap token as `upfleet agent token create` prints it: `<secret>[.<sha256 of the CA>]`.
// Like `kubeadm join`, the fingerprint lets an agent fetch the control plane's CA over the gRPC
// port itself and trust it only when it matches. Only the secret is sent in Register.

export interface JoinToken {
  secret: string;
  /** lower-case hex SHA-256 of the CA certificate (DER), or null when the token carries none */
  caFingerprint: string | null;
}

export function splitJoinToken(token: string): JoinToken {
  const m = /^([^.]+)\.([0-9a-fA-F]{64})$/.exec(token.trim());
  return m ? { secret: m[1], caFingerprint: m[2].toLowerCase() } : { secret: token.trim(), caFingerprint: null };
}
