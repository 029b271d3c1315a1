// The control-plane addresses an agent dials: HOST:PORT, or several separated by commas (a
// cluster; the agent tries them in turn). One rule for the agent's config and the CLI's hints.

const HOST_PORT = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):\d{1,5}$/;

/** `a:50051, b:50051` → ['a:50051', 'b:50051'] (blanks dropped). */
export function controlPlaneAddresses(list: string): string[] {
  return list.split(',').map((a) => a.trim()).filter((a) => a !== '');
}

/** Whether one address is HOST:PORT (an IPv6 host in brackets) with a port up to 65535. */
export function isControlPlaneAddress(address: string): boolean {
  return HOST_PORT.test(address) && Number(address.split(':').pop()) <= 65535;
}
