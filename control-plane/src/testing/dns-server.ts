// A real DNS server on loopback UDP for tests (dns-packet encodes the wire format): TXT records
// from a map the test changes as it goes; any other name is NXDOMAIN. The control plane reaches it
// through DNS_RESOLVERS=127.0.0.1:{port}.
import dgram from 'node:dgram';
import dnsPacket from 'dns-packet';

export interface LocalDnsServer {
  /** `127.0.0.1:{port}`, for DNS_RESOLVERS. */
  address: string;
  /** name (lower case, no trailing dot) → TXT values */
  txt: Map<string, string[]>;
  /** Questions asked, as `name:TYPE`. */
  queries: string[];
  close(): Promise<void>;
}

export async function startDnsServer(): Promise<LocalDnsServer> {
  const txt = new Map<string, string[]>();
  const queries: string[] = [];
  const socket = dgram.createSocket('udp4');
  socket.on('message', (msg, rinfo) => {
    let q: dnsPacket.Packet;
    try {
      q = dnsPacket.decode(msg);
    } catch {
      return;
    }
    const question = q.questions?.[0];
    if (!question) return;
    const name = question.name.toLowerCase();
    queries.push(`${name}:${question.type}`);
    const values = txt.get(name);
    const answers = question.type === 'TXT' && values ? values.map((v) => ({ type: 'TXT' as const, name: question.name, ttl: 1, data: [v] })) : [];
    const rcode = values ? 0 : 3; // NOERROR, or NXDOMAIN for a name without records
    socket.send(dnsPacket.encode({ type: 'response', id: q.id, flags: dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE | rcode, questions: q.questions, answers }), rinfo.port, rinfo.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${(socket.address()).port}`,
    txt,
    queries,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
