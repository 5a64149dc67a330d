// blurhash.js draws a blurhash (blurha.sh), the few dozen characters the
// server computes for every image at upload, as a small canvas: the
// blurred likeness a picture shows while it loads. A decoder of our own
// (the algorithm of the reference TypeScript, some 60 lines) rather than
// the npm package, which needs a build step to load as a module here.
//
// This file is shared: the mobile app is served it from here as
// /m/js/core/ (see mobile.FS); it has no copy of its own.

const DIGITS = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz#$%*+,-.:;=?@[]^_{|}~';

function decode83(s) {
  let v = 0;
  for (const c of s) {
    const d = DIGITS.indexOf(c);
    if (d < 0) return NaN;
    v = v * 83 + d;
  }
  return v;
}

function toLinear(v) {
  const x = v / 255;
  return x <= 0.04045 ? x / 12.92 : Math.pow((x + 0.055) / 1.055, 2.4);
}

function toSRGB(v) {
  const x = Math.max(0, Math.min(1, v));
  return x <= 0.0031308 ? Math.round(x * 12.92 * 255 + 0.5) : Math.round((1.055 * Math.pow(x, 1 / 2.4) - 0.055) * 255 + 0.5);
}

const signPow = (v, e) => Math.sign(v) * Math.pow(Math.abs(v), e);

/** decodeBlurhash returns the RGBA pixels (w × h) of hash, or null when it is not one. */
export function decodeBlurhash(hash, w, h) {
  if (typeof hash !== 'string' || hash.length < 6) return null;
  const size = decode83(hash[0]);
  const ny = Math.floor(size / 9) + 1, nx = (size % 9) + 1;
  if (hash.length !== 4 + 2 * nx * ny) return null;
  const max = (decode83(hash[1]) + 1) / 166;
  const colors = [];
  for (let i = 0; i < nx * ny; i++) {
    if (i === 0) {
      const dc = decode83(hash.slice(2, 6));
      colors.push([toLinear(dc >> 16), toLinear((dc >> 8) & 255), toLinear(dc & 255)]);
    } else {
      const v = decode83(hash.slice(4 + i * 2, 6 + i * 2));
      colors.push([Math.floor(v / 361), Math.floor(v / 19) % 19, v % 19].map((q) => signPow((q - 9) / 9, 2) * max));
    }
  }
  if (colors.some((c) => c.some(Number.isNaN))) return null;
  const px = new Uint8ClampedArray(w * h * 4);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      let r = 0, g = 0, b = 0;
      for (let j = 0; j < ny; j++) {
        const by = Math.cos((Math.PI * y * j) / h);
        for (let i = 0; i < nx; i++) {
          const basis = Math.cos((Math.PI * x * i) / w) * by;
          const c = colors[i + j * nx];
          r += c[0] * basis; g += c[1] * basis; b += c[2] * basis;
        }
      }
      const o = 4 * (x + y * w);
      px[o] = toSRGB(r); px[o + 1] = toSRGB(g); px[o + 2] = toSRGB(b); px[o + 3] = 255;
    }
  }
  return px;
}

/**
 * blurCanvas is a canvas (class media-blur, hidden from assistive
 * technology) painted with hash at the image's proportions, at most 32
 * pixels a side (CSS stretches it); null without a usable hash.
 */
export function blurCanvas(hash, width = 1, height = 1) {
  const ratio = width > 0 && height > 0 ? width / height : 1;
  const w = ratio >= 1 ? 32 : Math.max(4, Math.round(32 * ratio));
  const h = ratio >= 1 ? Math.max(4, Math.round(32 / ratio)) : 32;
  const px = decodeBlurhash(hash, w, h);
  if (!px) return null;
  const canvas = document.createElement('canvas');
  canvas.width = w;
  canvas.height = h;
  canvas.className = 'media-blur';
  canvas.setAttribute('aria-hidden', 'true');
  const g = canvas.getContext('2d');
  if (!g) return null;
  const data = g.createImageData(w, h);
  data.data.set(px);
  g.putImageData(data, 0, 0);
  return canvas;
}
