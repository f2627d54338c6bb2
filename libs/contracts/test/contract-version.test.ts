import { checkContractCompatibility, CONTRACT_VERSION, parseContractVersion } from '../src';

describe('contract versions', () => {
  it('parses major.minor.patch and major.minor, and rejects anything else', () => {
    expect(parseContractVersion('1.2.3')).toEqual({ major: 1, minor: 2, patch: 3 });
    expect(parseContractVersion('1.2')).toEqual({ major: 1, minor: 2, patch: 0 });
    expect(parseContractVersion('v1')).toBeUndefined();
    expect(parseContractVersion('1.x')).toBeUndefined();
  });

  it('is itself a version of major 1, matching the toolhub.v1 package', () => {
    expect(parseContractVersion(CONTRACT_VERSION)?.major).toBe(1);
  });

  it('accepts any minor of the same major, older or newer', () => {
    expect(checkContractCompatibility('1.0.0', '1.4.0')).toMatchObject({ compatible: true, reason: '' });
    expect(checkContractCompatibility('1.9.2', '1.4.0')).toMatchObject({ compatible: true });
  });

  it('reads an empty version as 1.0.0 (adapters from before versioning)', () => {
    expect(checkContractCompatibility('', '1.4.0')).toEqual({ compatible: true, announced: '1.0.0', reason: '' });
  });

  it('refuses another major and says which side to upgrade', () => {
    const newer = checkContractCompatibility('2.0.0', '1.4.0');
    expect(newer.compatible).toBe(false);
    expect(newer.reason).toContain('upgrade the dispatcher');
    const older = checkContractCompatibility('1.3.0', '2.0.0');
    expect(older.compatible).toBe(false);
    expect(older.reason).toContain('rebuild the adapter');
  });

  it('refuses text that is no version, quoting it', () => {
    const bad = checkContractCompatibility('banana', '1.4.0');
    expect(bad.compatible).toBe(false);
    expect(bad.reason).toContain('"banana"');
  });
});
