/**
 * The addrinfo structure (MS-FSCMT 2.2.2.1): one result of a host name lookup, the 5-tuple Python's
 * socket.getaddrinfo returns: (family, socktype, proto, canonname, (address, port)).
 *
 *   fscmtAddrinfo.write({ family: 2, socktype: 1, proto: 6, canonname: '', address: { host: '10.0.0.1', port: 0 } });
 */
import { FswcuTuple, type FswcuValue } from '../fswcu/fswcu-value';
import { fscmtInt, fscmtText, fscmtTupleItems, type FscmtFieldCodec } from './fscmt-fields';

export interface FscmtSockaddr {
  host: string;
  /** The spec requires 0. */
  port: number;
  /** IPv6 socket addresses are 4-tuples; these two are present only then. */
  flowinfo?: number;
  scopeId?: number;
}

export interface FscmtAddrinfo {
  family: number;
  socktype: number;
  proto: number;
  canonname: string;
  address: FscmtSockaddr;
}

export const fscmtAddrinfo: FscmtFieldCodec<FscmtAddrinfo> = {
  read(value, path) {
    const [family, socktype, proto, canonname, address] = fscmtTupleItems(value, path, 5);
    const at = `${path}[4]`;
    const sockaddr = fscmtTupleItems(address, at, 2, 4);
    if (sockaddr.length === 3) fscmtTupleItems(address, at, 4);
    const result: FscmtAddrinfo = {
      family: fscmtInt.read(family, `${path}[0]`),
      socktype: fscmtInt.read(socktype, `${path}[1]`),
      proto: fscmtInt.read(proto, `${path}[2]`),
      canonname: fscmtText.read(canonname, `${path}[3]`),
      address: { host: fscmtText.read(sockaddr[0], `${at}[0]`), port: fscmtInt.read(sockaddr[1], `${at}[1]`) },
    };
    if (sockaddr.length === 4) {
      result.address.flowinfo = fscmtInt.read(sockaddr[2], `${at}[2]`);
      result.address.scopeId = fscmtInt.read(sockaddr[3], `${at}[3]`);
    }
    return result;
  },
  write(value) {
    const a = value.address;
    const sockaddr: FswcuValue[] = [fscmtText.write(a.host), fscmtInt.write(a.port)];
    if (a.flowinfo !== undefined || a.scopeId !== undefined) sockaddr.push(fscmtInt.write(a.flowinfo ?? 0), fscmtInt.write(a.scopeId ?? 0));
    return new FswcuTuple([
      fscmtInt.write(value.family),
      fscmtInt.write(value.socktype),
      fscmtInt.write(value.proto),
      fscmtText.write(value.canonname),
      new FswcuTuple(sockaddr),
    ]);
  },
};

/**
 * Where a message carries lookup results: one addrinfo per the spec's tables, a list of them per its examples
 * (Python's getaddrinfo returns a list), or None (lookup failed, or the collection crawls through a proxy).
 */
export type FscmtAddrinfoResult = FscmtAddrinfo | FscmtAddrinfo[] | null;

export const fscmtAddrinfoResult: FscmtFieldCodec<FscmtAddrinfoResult> = {
  read(value, path) {
    if (value === null) return null;
    if (Array.isArray(value)) return value.map((item, i) => fscmtAddrinfo.read(item, `${path}[${i}]`));
    return fscmtAddrinfo.read(value, path);
  },
  write(value) {
    if (value === null) return null;
    if (Array.isArray(value)) return value.map((item) => fscmtAddrinfo.write(item));
    return fscmtAddrinfo.write(value);
  },
};
