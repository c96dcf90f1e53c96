import { describe, expect, it } from 'vitest';
import { sessionFactoryInterface as sf } from './session-factory';
import { signatureOf } from './spec-fixtures';

describe('processing::session_factory', () => {
  it('is version 5.1 and declares no method of its own: __ping is answered by every server object (MS-FSCDFT 3.3.4)', () => {
    expect(sf.type).toBe('processing::session_factory');
    expect(sf.version).toBe('5.1');
    // MS-FSCDFT appendix A lists only `void __ping()`; the other methods are in MS-FSCF section 3 (not available).
    expect(signatureOf(sf)).toEqual([]);
    expect('__ping' in sf.methods).toBe(false);
  });
});
