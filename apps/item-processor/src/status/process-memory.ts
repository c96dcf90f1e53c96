import { readFileSync } from 'node:fs';

/** What the OS says about this process's memory and paging (MS-FSDPD 2.2.39 PageSwaps, VirtualMem, ResidentMem, MemUsage). */
export interface ProcessMemory {
  /** Page faults that needed I/O (major faults) since the process started. */
  readonly pageSwaps: number;
  /** Bytes of virtual memory (Linux VmSize; elsewhere the resident set, the best the platform offers). */
  readonly virtualMem: number;
  /** Bytes of resident memory (RSS). */
  readonly residentMem: number;
  /** Bytes allocated by the program: the JS heap in use plus memory held outside it (buffers). */
  readonly memUsage: number;
}

function vmSizeBytes(): number | undefined {
  try {
    const m = /^VmSize:\s+(\d+)\s+kB/m.exec(readFileSync('/proc/self/status', 'utf8'));
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

export function processMemory(): ProcessMemory {
  const mem = process.memoryUsage();
  return {
    pageSwaps: process.resourceUsage().majorPageFault,
    virtualMem: vmSizeBytes() ?? mem.rss,
    residentMem: mem.rss,
    memUsage: mem.heapUsed + mem.external,
  };
}
