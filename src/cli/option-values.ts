/**
 * What an option's text means: string → value, or a usage error (exit 2) whose message starts with the option's
 * flag, so that the user sees which of several options was wrong. The flag is passed in rather than written here:
 * the options' table (options.ts) says each flag once, and several options share a kind of value.
 */
import { usageError } from "../base/errors.js";
import { GATE_METRICS, parseKinds, type GateMetric, type GateOptions } from "../gates/spec.js";
import { parseDuration, parseRate, parseSize, type SizeSpec, type UnitParse } from "../base/units.js";
import type { VerdictKind } from "../base/verdict-kinds.js";
import { parseSetting, type SettingRequest } from "../trial/setting-text.js";

export type ValueParser<T> = (text: string, flag: string) => T;

function orThrow<T>(r: UnitParse<T>, flag: string): T {
  if (!r.ok) throw usageError(`${flag}: ${r.message}`);
  return r.value;
}

/** Seconds, from 500ms, 30s, 10m, 1h30m or a bare number; `atLeast` keeps a zero interval from spinning a core. */
export const seconds =
  ({ atLeast = 0 } = {}): ValueParser<number> =>
  (text, flag) => {
    const v = orThrow(parseDuration(text), flag);
    if (v < atLeast) throw usageError(`${flag}: must be at least ${atLeast}s`);
    return v;
  };

/** Seconds, and the text as typed (a gate quotes its limit the way the user wrote it). */
export const durationText: ValueParser<{ seconds: number; text: string }> = (text, flag) => ({
  seconds: orThrow(parseDuration(text), flag),
  text,
});

export const size: ValueParser<SizeSpec> = (text, flag) => orThrow(parseSize(text), flag);

/** A size in bytes, for limits where a percentage has nothing to be a percentage of (one test's growth). */
export const bytes: ValueParser<number> = (text, flag) => {
  const v = size(text, flag);
  if (v.kind !== "bytes") throw usageError(`${flag}: "${text}" is a percentage: give a size (100KiB, 10MiB)`);
  return v.bytes;
};

/** A whole number of times, from `atLeast` to `atMost`. */
export const count =
  ({ atLeast, atMost }: { atLeast: number; atMost: number }): ValueParser<number> =>
  (text, flag) => {
    const v = Number(text);
    if (!/^\d+$/.test(text.trim()) || v < atLeast || v > atMost)
      throw usageError(`${flag}: "${text}" is not a whole number from ${atLeast} to ${atMost}`);
    return v;
  };

/** Bytes per second, and the text as typed: the verdict quotes the limit the way the user wrote it. */
export const rate: ValueParser<NonNullable<GateOptions["maxRate"]>> = (text, flag) => ({
  bytesPerSecond: orThrow(parseRate(text), flag),
  text,
});

export const verdictKinds: ValueParser<VerdictKind[]> = (text, flag) => orThrow(parseKinds(text), flag);

export const gateMetric: ValueParser<GateMetric> = (text, flag) => {
  if (!(GATE_METRICS as readonly string[]).includes(text))
    throw usageError(`${flag}: "${text}" is not a metric: choose from ${GATE_METRICS.join(", ")}`);
  return text as GateMetric;
};

/** A share of one core, typed as a percentage (3 or 3%), returned as a fraction (0.03). */
export const percentOfCore: ValueParser<number> = (text, flag) => {
  const percent = Number(text.replace(/%$/, ""));
  if (!Number.isFinite(percent) || percent <= 0 || percent > 100) {
    throw usageError(`${flag}: "${text}" is not a percentage of one core between 0 and 100`);
  }
  return percent / 100;
};

/** A file or directory name, taken as given: whether it can be written or read is found out when it is used. */
export const path: ValueParser<string> = (text) => text;

import type { ListenAddress } from "../export/listen-address.js";
export type { ListenAddress };

/**
 * `[host:]port`, as typed: `9464`, `0.0.0.0:9464`, `[::1]:9464`. Only the loopback address unless a host is named:
 * memory figures and command names are not for the whole network by default.
 */
export const listenAddress: ValueParser<ListenAddress> = (text, flag) => {
  const m = /^(?:(\[[0-9a-fA-F:.]+\]|[^:[\]\s]+):)?(\d{1,5})$/.exec(text.trim());
  const port = m ? Number(m[2]) : NaN;
  if (!m || !(port >= 0 && port <= 65535)) {
    throw usageError(`${flag}: "${text}" is not [host:]port (9464, 127.0.0.1:9464, 0.0.0.0:9464, [::1]:9464)`);
  }
  return { host: m[1]?.replace(/^\[|\]$/g, "") ?? "127.0.0.1", port };
};

/** An http(s) URL, the server's base (http://prometheus:9090); what is found there is found out when it is asked. */
export const httpUrl: ValueParser<URL> = (text, flag) => {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw usageError(`${flag}: "${text}" is not a URL (http://prometheus:9090)`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw usageError(`${flag}: "${text}" is not an http:// or https:// URL`);
  return url;
};

/** Text taken as typed, but not empty: an empty PromQL query would only come back as Prometheus's error. */
export const nonEmpty: ValueParser<string> = (text, flag) => {
  if (text.trim() === "") throw usageError(`${flag}: must not be empty`);
  return text;
};

/** One `--try` setting (trial/settings.ts checks its form; an allocator's library is looked for when the run starts). */
export const trialSetting: ValueParser<SettingRequest> = (text, flag) => parseSetting(text, flag);
