import type { FscmtNodeSchedulerMessage, FscmtPriority } from '@esp/codecs';

/** How every part of the machine talks to a node scheduler: a message to its address (the machine encodes it). */
export type NodeSend = (to: string, message: FscmtNodeSchedulerMessage, priority: FscmtPriority) => void;
