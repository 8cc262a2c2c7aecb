// Stand-ins for the files a gateway links to (QR code images, boleto PDFs): well-formed, but blank.

/** A 1x1 PNG, base64: the QR "image" (the copy-and-paste EMV text is the real content). */
export const PNG_1X1_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';
export const PNG_1X1 = Buffer.from(PNG_1X1_BASE64, 'base64');
export const MINIMAL_PDF = '%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj 2 0 obj<</Type/Pages/Count 0/Kids[]>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n';
