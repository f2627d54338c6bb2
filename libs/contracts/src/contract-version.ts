/**
 * The version of the ToolHub wire contract (proto/toolhub/v1 plus the NATS subjects and headers)
 * and the compatibility rule between an adapter and a dispatcher.
 *
 * The promise (ADAPTERS.md): within one major, changes are additive only — new optional fields,
 * messages, codes and subjects; nothing is renamed, renumbered or removed (`buf breaking` against
 * proto/published enforces it). So a dispatcher serves adapters of any minor of its major, older
 * or newer; a different major is refused with a message that says what to upgrade.
 */

/**
 * The contract version this build speaks. Minor goes up with each additive published change;
 * major only with a new `toolhub.vN` package and subject root.
 */
export const CONTRACT_VERSION = '1.1.0';

/** What an adapter from before contract versioning (an empty `contract_version`) speaks. */
export const UNVERSIONED_CONTRACT = '1.0.0';

/** A parsed `major.minor.patch` contract version. */
export interface ContractVersion {
  major: number;
  minor: number;
  patch: number;
}

const VERSION_PATTERN = /^(\d{1,6})\.(\d{1,6})(?:\.(\d{1,6}))?$/;

/** Parses "1.2.3" (or "1.2"); undefined when the text is no contract version. */
export function parseContractVersion(text: string): ContractVersion | undefined {
  const m = VERSION_PATTERN.exec(text.trim());
  if (!m) return undefined;
  return { major: Number(m[1]), minor: Number(m[2]), patch: Number(m[3] ?? 0) };
}

/** The result of {@link checkContractCompatibility}. */
export interface ContractCompatibility {
  compatible: boolean;
  /** The version announced, with the empty string read as {@link UNVERSIONED_CONTRACT}. */
  announced: string;
  /** Why an adapter is refused, written for the operator who has to fix it; empty when compatible. */
  reason: string;
}

/**
 * Can a dispatcher speaking `ours` serve an adapter that announces `announced`? Same major: yes,
 * whatever the minor. Another major, or text that is no version: no, with the reason.
 */
export function checkContractCompatibility(announced: string, ours: string = CONTRACT_VERSION): ContractCompatibility {
  const text = announced.trim() === '' ? UNVERSIONED_CONTRACT : announced.trim();
  const mine = parseContractVersion(ours);
  const theirs = parseContractVersion(text);
  if (!mine) throw new Error(`invalid own contract version ${JSON.stringify(ours)}`);
  if (!theirs) {
    return {
      compatible: false,
      announced: text.slice(0, 64),
      reason: `refused: the adapter announces contract version ${JSON.stringify(text.slice(0, 64))}, which is not a version (expected major.minor.patch, e.g. ${ours}). Rebuild it with @toolhub/adapter-sdk.`,
    };
  }
  if (theirs.major === mine.major) return { compatible: true, announced: text, reason: '' };
  const upgrade =
    theirs.major > mine.major
      ? `upgrade the dispatcher to one that speaks contract ${theirs.major}.x, or run an adapter built with an SDK for contract ${mine.major}.x`
      : `rebuild the adapter with an @toolhub/adapter-sdk release for contract ${mine.major}.x`;
  return {
    compatible: false,
    announced: text,
    reason: `refused: the adapter speaks ToolHub contract ${text} but this dispatcher speaks ${ours}; majors differ, so their messages may not mean the same. To fix it, ${upgrade}.`,
  };
}
