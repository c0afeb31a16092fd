import { describe, expect, it } from "vitest";
import { drawBlank, pngHeader } from "../../test/fixtures/extract/images";
import { imageSize } from "./image-size";

const riff = (chunk: string, body: number[]) => {
  const payload = [...Buffer.from(chunk, "latin1"), 0, 0, 0, 0, ...body];
  return new Uint8Array([...Buffer.from("RIFF", "latin1"), 0, 0, 0, 0, ...Buffer.from("WEBP", "latin1"), ...payload, ...Array(16).fill(0)]);
};

describe("imageSize", () => {
  it("reads the size of PNG, JPEG and WebP images as the canvas encodes them", () => {
    const { png, jpeg, webp } = drawBlank(1234, 567);
    expect(imageSize(png)).toEqual({ format: "png", width: 1234, height: 567 });
    expect(imageSize(jpeg)).toEqual({ format: "jpeg", width: 1234, height: 567 });
    expect(imageSize(webp)).toEqual({ format: "webp", width: 1234, height: 567 });
  });

  it("reads what a header claims without any pixel data behind it", () => {
    expect(imageSize(pngHeader(100_000, 100_000))).toEqual({ format: "png", width: 100_000, height: 100_000 });
  });

  it("finds a JPEG's frame past other segments and fill bytes, progressive frames included", () => {
    const app = [0xff, 0xe1, 0x00, 0x06, 1, 2, 3, 4];
    // SOF2 (progressive): length 17, precision 8, 3000 lines, 4000 samples per line.
    const sof2 = [0xff, 0xff, 0xc2, 0x00, 0x11, 0x08, 0x0b, 0xb8, 0x0f, 0xa0, 0x03, ...Array(9).fill(0)];
    expect(imageSize(new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x04, 0, 0, ...app, ...sof2]))).toEqual({
      format: "jpeg",
      width: 4000,
      height: 3000,
    });
    // A Huffman table (C4) is not a frame.
    const dht = [0xff, 0xc4, 0x00, 0x04, 0x00, 0x00];
    expect(imageSize(new Uint8Array([0xff, 0xd8, ...dht, ...sof2.slice(1)]))).toMatchObject({ width: 4000, height: 3000 });
  });

  it("reads lossless and extended WebP headers", () => {
    // VP8L: width - 1 = 1999 and height - 1 = 999 in 14 bits each after the 0x2F signature.
    const bits = 1999 | (999 << 14);
    expect(imageSize(riff("VP8L", [0x2f, bits & 0xff, (bits >>> 8) & 0xff, (bits >>> 16) & 0xff, bits >>> 24]))).toEqual({
      format: "webp",
      width: 2000,
      height: 1000,
    });
    // VP8X: a 16,384 × 65,536 canvas (24-bit sizes minus one).
    expect(imageSize(riff("VP8X", [0, 0, 0, 0, 0xff, 0x3f, 0x00, 0xff, 0xff, 0x00]))).toEqual({
      format: "webp",
      width: 16_384,
      height: 65_536,
    });
  });

  it("is null for other bytes, a header cut short, or one that states no size", () => {
    expect(imageSize(new TextEncoder().encode("%PDF-1.4"))).toBeNull();
    expect(imageSize(pngHeader(640, 480).subarray(0, 20))).toBeNull();
    expect(imageSize(pngHeader(0, 480))).toBeNull();
    // Image data (SOS) before any frame header.
    expect(imageSize(new Uint8Array([0xff, 0xd8, 0xff, 0xda, 0x00, 0x02, 0, 0, 0, 0]))).toBeNull();
    expect(imageSize(riff("VP8 ", [0, 0, 0, 1, 2, 3, 0, 0, 0, 0]))).toBeNull();
  });
});
