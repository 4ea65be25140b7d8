/**
 * Just enough of a PNG decoder to look at a browser screenshot's pixels from Node (no image package in the project):
 * 8-bit RGB or RGBA, not interlaced — what chromium writes. Anything else throws, so a test cannot pass on an image
 * it did not actually read.
 */
import { inflateSync } from "node:zlib";

export interface Png {
  width: number;
  height: number;
  /** [r, g, b, a] of the pixel at (x, y); alpha is 255 for an RGB image. */
  pixel(x: number, y: number): [number, number, number, number];
}

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** The Paeth predictor of the PNG specification (section 9.4). */
function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/** What a row's filter type adds back to each byte, from its left (a), upper (b) and upper-left (c) neighbours. */
function predict(filter: number, a: number, b: number, c: number, y: number): number {
  switch (filter) {
    case 0:
      return 0;
    case 1:
      return a;
    case 2:
      return b;
    case 3:
      return (a + b) >> 1;
    case 4:
      return paeth(a, b, c);
    default:
      throw new Error(`unknown PNG filter ${filter} on row ${y}`);
  }
}

export function decodePng(file: Buffer): Png {
  if (!file.subarray(0, 8).equals(SIGNATURE)) throw new Error("not a PNG file");
  let width = 0;
  let height = 0;
  let channels = 0;
  const idat: Buffer[] = [];
  for (let at = 8; at < file.length;) {
    const length = file.readUInt32BE(at);
    const type = file.toString("latin1", at + 4, at + 8);
    const data = file.subarray(at + 8, at + 8 + length);
    if (type === "IHDR") {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      const [depth, colour, , , interlace] = data.subarray(8, 13);
      channels = colour === 2 ? 3 : colour === 6 ? 4 : 0;
      if (depth !== 8 || channels === 0 || interlace !== 0)
        throw new Error(`unsupported PNG: depth ${depth}, colour type ${colour}, interlace ${interlace}`);
    } else if (type === "IDAT") idat.push(data);
    else if (type === "IEND") break;
    at += 12 + length; // length, type, data, CRC
  }
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  if (raw.length !== height * (stride + 1))
    throw new Error(`PNG data is ${raw.length} bytes, expected ${height * (stride + 1)}`);
  // Undo each row's filter in place (specification section 9.2); `px` ends up holding the plain pixel rows.
  const px = Buffer.alloc(height * stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!;
    const row = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let i = 0; i < stride; i++) {
      const a = i >= channels ? px[y * stride + i - channels]! : 0;
      const b = y > 0 ? px[(y - 1) * stride + i]! : 0;
      const c = i >= channels && y > 0 ? px[(y - 1) * stride + i - channels]! : 0;
      px[y * stride + i] = (row[i]! + predict(filter, a, b, c, y)) & 0xff;
    }
  }
  return {
    width,
    height,
    pixel(x, y) {
      const o = y * stride + x * channels;
      return [px[o]!, px[o + 1]!, px[o + 2]!, channels === 4 ? px[o + 3]! : 255];
    },
  };
}
