import { describe, expect, it } from 'vitest';
import { sessionFactoryInterface as sf } from './session-factory';
import { signatureOf } from './spec-fixtures';

describe('processing::session_factory', () => {
  it('is version 5.1; __ping is answered by every server object (MS-FSCDFT 3.3.4); session creation forwards to dispatcher_node', () => {
    expect(sf.type).toBe('processing::session_factory');
    expect(sf.version).toBe('5.1');
    // MS-FSCDFT appendix A lists only `void __ping()`; the session methods (MS-FSCF, not available) are ours, with
    // the dispatcher_node signatures of MS-FSCDFT 3.5.4.
    expect(signatureOf(sf).map((m) => m[0])).toEqual(['create_session', 'create', 'recreate', 'destroy_session']);
    expect('__ping' in sf.methods).toBe(false);
  });
});
