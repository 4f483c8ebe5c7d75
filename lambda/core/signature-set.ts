/**
 * One request's signature fields, read once ({@link SignatureSet}): what choosing the signature
 * to check (lambda/authorizer) and verifying it (./verify.ts) share. The set reads members
 * through its verifier's memos ({@link SignatureFieldReader}) and keeps each field's full parse
 * and every refusal it gave, so no step of a request, accepted or refused, reads a field again.
 */
import { SignetError, isSignetError } from './errors';
import type { CheckedInput } from './signature-checks';
import {
  type SignatureMemberSummary,
  parseSignatureField,
  parseSignatureInputField,
  readCanonicalSignatureValue,
  signatureValueMember,
} from './signature-params';
import type { Dictionary } from './structured-fields';
import type { SignedRequest } from './types';
import type { VerifyPolicy } from './verify-policy';

/**
 * A parsed Signature-Input member as the memo keeps it: its facts, and the verifier's policies
 * (one per profile) under which the checks that depend only on it and the policy pass. Worked out
 * once, when the value is first parsed; never changed after.
 */
export interface MemoizedInput {
  readonly checked: CheckedInput;
  /** Policies under which stage 1's policy-only checks pass: a known `alg`, the keyid, `@method` and the target covered. */
  readonly sharedPasses: readonly VerifyPolicy[];
  /** Policies under which the profile's own checks pass: `alg` required, required components, a date covered. */
  readonly profilePasses: readonly VerifyPolicy[];
  /** Its covered list's base heads (./signature-base.ts, baseHeads). */
  readonly heads: readonly string[];
}

/** What a SignatureSet reads its members through: the verifier's memoized readers (./verify.ts Verifier). */
export interface SignatureFieldReader {
  /** Member `label` of Signature-Input `field` with its facts; `set` makes the field's full parse, when one is needed, once. */
  signatureInput(field: string, label: string, policy: VerifyPolicy, set: SignatureSet): MemoizedInput;
  /** The members Signature-Input `field` declares; read from `set`'s full parse. */
  memberList(field: string, set: SignatureSet): readonly SignatureMemberSummary[];
  /** See VerifierOptions.onFieldRead (./verify.ts). */
  readonly onFieldRead: ((field: 'Signature-Input' | 'Signature') => void) | undefined;
}

/**
 * The Signature-Input and Signature fields of one request, each read once: the labels and keyids
 * declared, each member asked for and each signature value. Choosing the signature to check and
 * verifying it read the same set. Built by Verifier.read (./verify.ts); lives as long as the request.
 */
export class SignatureSet {
  readonly inputField: string | undefined;
  readonly signatureField: string | undefined;
  private memberList: readonly SignatureMemberSummary[] | undefined;
  // The usual request has one signature: its member and value are held in fields, and a map is
  // made only for a second label.
  private firstLabel: string | undefined;
  private firstInput: MemoizedInput | undefined;
  private otherInputs: Map<string, MemoizedInput> | undefined;
  private valueLabel: string | undefined;
  private value: Buffer | undefined;
  private otherValues: Map<string, Buffer> | undefined;
  // Each field's full parse, made at most once (only for text not in canonical form), and every
  // refusal given, by what was asked: a stranger's malformed field is read once however many
  // steps of the refusal ask for it.
  private inputDictionary: Dictionary | undefined;
  private signatureDictionary: Dictionary | undefined;
  private refusals: Map<string, SignetError> | undefined;

  constructor(
    readonly request: SignedRequest,
    private readonly verifier: SignatureFieldReader,
  ) {
    this.inputField = request.headers['signature-input'];
    this.signatureField = request.headers['signature'];
  }

  /** Whether both fields are present (without them every refusal is `missing_signature`). */
  get present(): boolean {
    return this.inputField !== undefined && this.signatureField !== undefined;
  }

  /**
   * The signatures Signature-Input declares (labels, keyids, `created`), at most MAX_SIGNATURES_READ.
   * @throws SignetError `malformed_signature_input`, `invalid_signature_input`
   */
  members(): readonly SignatureMemberSummary[] {
    this.memberList ??= this.soleMember();
    if (this.memberList === undefined) {
      this.throwIfRefused('members', '');
      try {
        this.memberList = this.verifier.memberList(this.inputField ?? '', this);
      } catch (error) {
        throw this.refused('members', '', error);
      }
    }
    return this.memberList;
  }

  /**
   * The member list of a field that is exactly the one member already read (`label=` and its
   * canonical serialization: the usual signer's field), without parsing the field again; else undefined.
   */
  private soleMember(): readonly SignatureMemberSummary[] | undefined {
    const input = this.firstInput?.checked.input;
    if (input === undefined || this.inputField !== `${input.label}=${input.signatureParams}`) return undefined;
    const { label, keyid, created } = input;
    return Object.freeze([{ label, components: input.covered.length, ...(keyid !== undefined ? { keyid } : {}), ...(created !== undefined ? { created } : {}) }]);
  }

  /**
   * Whether Signature-Input may declare signature `label`: false only when the field parses and
   * has no such member, i.e. when {@link input} would refuse it with `signature_label_missing`.
   * A field that starts with `label=` declares it without a parse; any other field is parsed in
   * full (once: {@link members} and {@link input} read the same parse). A field that does not
   * parse may declare anything: asking for the member gives its refusal.
   */
  declares(label: string): boolean {
    const field = this.inputField;
    if (field === undefined || label === this.firstLabel) return true;
    if (field.startsWith(label) && field.charCodeAt(label.length) === 0x3d /* = */) return true;
    try {
      return this.inputFieldParsed().has(label);
    } catch (error) {
      if (isSignetError(error)) return true;
      throw error;
    }
  }

  /** Member `label` of Signature-Input with its facts. @throws SignetError as readSignatureInput */
  input(label: string, policy: VerifyPolicy): MemoizedInput {
    if (label === this.firstLabel) return this.firstInput as MemoizedInput;
    let read = this.otherInputs?.get(label);
    if (read === undefined) {
      // A refusal may come from the component cap (too many components): it answers for that cap only.
      this.throwIfRefused('input', label, policy.maxCoveredComponents);
      try {
        read = this.verifier.signatureInput(this.inputField ?? '', label, policy, this);
      } catch (error) {
        throw this.refused('input', label, error, policy.maxCoveredComponents);
      }
      if (this.firstLabel === undefined) {
        this.firstLabel = label;
        this.firstInput = read;
      } else {
        (this.otherInputs ??= new Map()).set(label, read);
      }
    }
    return read;
  }

  /** The signature bytes of member `label` of Signature. @throws SignetError as readSignatureValue */
  signature(label: string): Buffer {
    if (label === this.valueLabel) return this.value as Buffer;
    let value = this.otherValues?.get(label);
    if (value === undefined) {
      this.throwIfRefused('signature', label);
      try {
        value = this.readValue(label);
      } catch (error) {
        throw this.refused('signature', label, error);
      }
      if (this.valueLabel === undefined) {
        this.valueLabel = label;
        this.value = value;
      } else {
        (this.otherValues ??= new Map()).set(label, value);
      }
    }
    return value;
  }

  /**
   * Signature-Input parsed in full, the first time it is asked for; every later call returns
   * that parse (or throws its refusal again).
   * @throws SignetError `malformed_signature_input`
   */
  inputFieldParsed(): Dictionary {
    if (this.inputDictionary === undefined) {
      this.throwIfRefused('parse', 'Signature-Input');
      this.verifier.onFieldRead?.('Signature-Input');
      try {
        this.inputDictionary = parseSignatureInputField(this.inputField ?? '');
      } catch (error) {
        throw this.refused('parse', 'Signature-Input', error);
      }
    }
    return this.inputDictionary;
  }

  /** Whether {@link inputFieldParsed} has run and succeeded (then members are read from it, not from the text). */
  get inputFieldIsParsed(): boolean {
    return this.inputDictionary !== undefined;
  }

  private readValue(label: string): Buffer {
    const field = this.signatureField ?? '';
    if (this.signatureDictionary === undefined) {
      const canonical = readCanonicalSignatureValue(field, label);
      if (canonical !== undefined) {
        this.verifier.onFieldRead?.('Signature');
        return canonical;
      }
      this.throwIfRefused('parse', 'Signature');
      this.verifier.onFieldRead?.('Signature');
      try {
        this.signatureDictionary = parseSignatureField(field);
      } catch (error) {
        throw this.refused('parse', 'Signature', error);
      }
    }
    return signatureValueMember(this.signatureDictionary, label);
  }

  /** Throws the refusal given the first time `what` of `label` was asked for (under component cap `cap`, for a member), if one was. */
  private throwIfRefused(what: 'input' | 'signature' | 'members' | 'parse', label: string, cap = 0): void {
    const refused = this.refusals?.get(`${what} ${cap} ${label}`);
    if (refused !== undefined) throw refused;
  }

  /** `error`, kept (when it is a refusal) as the answer to every later ask for `what` of `label` (under component cap `cap`). */
  private refused(what: 'input' | 'signature' | 'members' | 'parse', label: string, error: unknown, cap = 0): unknown {
    if (isSignetError(error)) (this.refusals ??= new Map()).set(`${what} ${cap} ${label}`, error);
    return error;
  }

  /** The signature the policy reads when no label is chosen (the policy's label, `sig`, or under a profile that accepts any label and without a `sig` signature, the first one declared). */
  defaultLabel(policy: VerifyPolicy): string {
    // Without both fields the refusal is missing_signature, whatever the label.
    if (!this.present || policy.profile === 'signet') return policy.label;
    const members = this.members();
    if (members.some((m) => m.label === policy.label) || members.length === 0) return policy.label;
    return members[0].label;
  }

  /** The keyid signature `label` gives, when Signature-Input has that signature and it parses within the policy's component limit. */
  keyIdOf(label: string, policy: VerifyPolicy): string | undefined {
    try {
      return this.input(label, policy).checked.input.keyid;
    } catch (error) {
      if (isSignetError(error)) return undefined;
      throw error;
    }
  }
}
