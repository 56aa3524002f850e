/**
 * Saves `data` as a file named `name` through a temporary link on an object URL (no new window):
 * the console's one way to hand the user a file (CSV exports, PDFs, certificates, phone profiles).
 * The URL is revoked once the click has been handled.
 * @param type the file's media type, e.g. `text/csv`
 * @param doc the document to add the link to; injectable for tests
 */
export function saveFile(data: BlobPart, name: string, type: string, doc: Document = document): void {
  const url = URL.createObjectURL(new Blob([data], { type }));
  const a = doc.createElement('a');
  a.href = url;
  a.download = name;
  a.rel = 'noopener';
  doc.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}
