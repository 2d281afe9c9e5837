// @ts-check
// A photo of the dice made ready to send: a big one is drawn smaller (a JPEG at most SIDE px on
// its long side), so a phone's 12-MP photo uploads in a moment (the reader works at 640 px
// anyway: docs/vision.md). A photo the browser cannot draw (HEIC, in most browsers) goes as it
// is, for the server to say why it cannot read it (415, "choose JPEG").

const SIDE = 1600;
/** JPEG quality of a photo drawn smaller: pips stay sharp, the file a few hundred KB. */
const QUALITY = 0.9;

/**
 * The photo to upload: ``file`` itself, or a smaller upright JPEG of it.
 * @param {Blob} file
 * @returns {Promise<Blob>}
 */
export async function shrinkPhoto(file) {
  if (typeof createImageBitmap !== "function") return file;
  let bitmap;
  try {
    bitmap = await createImageBitmap(file); // upright: the EXIF orientation is applied
  } catch {
    return file;
  }
  const scale = SIDE / Math.max(bitmap.width, bitmap.height);
  const canvas = document.createElement("canvas");
  const context = scale < 1 ? canvas.getContext("2d") : null;
  if (!context) {
    bitmap.close();
    return file;
  }
  canvas.width = Math.max(1, Math.round(bitmap.width * scale));
  canvas.height = Math.max(1, Math.round(bitmap.height * scale));
  context.drawImage(bitmap, 0, 0, canvas.width, canvas.height);
  bitmap.close();
  /** @type {Blob | null} */
  const smaller = await new Promise((resolve) => canvas.toBlob(resolve, "image/jpeg", QUALITY));
  return smaller || file;
}
