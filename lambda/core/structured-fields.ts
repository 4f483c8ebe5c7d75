/**
 * RFC 8941 Structured Fields, through the `structured-headers` package, with its exceptions
 * turned into Signet rejections. Nothing else in Signet parses structured fields by hand.
 */
import {
  Dictionary,
  InnerList,
  Item,
  ParseError,
  parseDictionary,
  serializeDictionary,
  serializeInnerList,
  serializeItem,
} from 'structured-headers';
import { SignetErrorCode, fail } from './errors';

export type { Dictionary, InnerList, Item };

/**
 * Parses a dictionary field (RFC 8941 §3.2).
 * @param code the rejection code to use when the value is not a valid dictionary
 * @param fieldName the header's name, for the message
 */
export function parseDictionaryField(value: string, code: SignetErrorCode, fieldName: string): Dictionary {
  try {
    return parseDictionary(value);
  } catch (cause) {
    const detail = cause instanceof ParseError || cause instanceof Error ? ` (${cause.message.slice(0, 120)})` : '';
    fail(code, `${fieldName} is not a valid RFC 8941 dictionary${detail}. Send ${fieldName} as label=value, e.g. sig=...`, { cause });
  }
}

/** The canonical serialization of an inner list with its parameters (RFC 8941 §4.1.1.1). */
export function serializeInnerListValue(list: InnerList): string {
  return serializeInnerList(list);
}

/** The canonical serialization of a whole dictionary (RFC 8941 §4.1.2). */
export function serializeDictionaryValue(dict: Dictionary): string {
  return serializeDictionary(dict);
}

/** The canonical serialization of one item or inner list (a dictionary member's value). */
export function serializeMemberValue(member: Item | InnerList): string {
  return Array.isArray(member[0]) ? serializeInnerList(member as InnerList) : serializeItem(member as Item);
}

/** True when the member is an inner list. */
export function isInnerList(member: Item | InnerList): member is InnerList {
  return Array.isArray(member[0]);
}
