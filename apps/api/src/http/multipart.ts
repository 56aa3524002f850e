import { ApiError, Constants, Messages } from '@cordon/shared';
import fastifyMultipart from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/**
 * Accepts multipart bodies in `scoped` only (register it inside the `app.register` of the routes that
 * take uploads, so no other route does): one file of at most `Constants.maxUploadBytes` (spec-notes §9),
 * a few plain fields.
 */
export async function acceptUploads(scoped: FastifyInstance): Promise<void> {
  await scoped.register(fastifyMultipart, {
    limits: { fileSize: Constants.maxUploadBytes, files: 1, fields: 5, parts: 6 },
  });
}

/**
 * The bytes of the multipart file field `field` (the CSV imports' `csv`, the logos' `logo`; spec-notes §7),
 * at most `Constants.maxUploadBytes`. Other file parts are drained and ignored.
 * @param required the field message when the file is missing (docs/api.md "Uploads")
 * @throws ApiError ERR_VALIDATION naming `field`: not multipart or no such file (`required`), or larger
 *   than 1 MB ("File size exceeds maximum of 1mb.")
 */
export async function uploadedFile(request: FastifyRequest, field: string, required: string): Promise<Buffer> {
  const missing = () => new ApiError('ERR_VALIDATION', required, { [field]: Messages.required });
  if (!request.isMultipart()) throw missing();
  try {
    for await (const part of request.parts()) {
      if (part.type === 'file' && part.fieldname === field) return await part.toBuffer();
      if (part.type === 'file') await part.toBuffer();
    }
  } catch (e) {
    if ((e as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') {
      throw new ApiError('ERR_VALIDATION', Messages.fileTooLarge, { [field]: Messages.fileTooLarge });
    }
    throw e;
  }
  throw missing();
}
