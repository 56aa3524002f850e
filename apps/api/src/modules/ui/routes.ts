import { branding } from '@cordon/core';
import { ApiError, Endpoints, Messages, type UiInterfaceFields, uiInterfaceFieldsSchema } from '@cordon/shared';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { registerEndpoint } from '../../http/endpoint.ts';
import { acceptUploads } from '../../http/multipart.ts';
import type { AppDeps } from '../../types.ts';

/** The multipart body of `POST /ui/interface`: its text fields and the `logo` file, if any. */
interface InterfaceForm {
  readonly fields: UiInterfaceFields;
  readonly logo: Buffer | null;
}

/** `nameservers` as sent: comma- or newline-separated, possibly repeated; blanks dropped. */
function splitNameservers(values: readonly string[]): string[] {
  return values.flatMap((v) => v.split(/[\s,]+/)).filter((v) => v !== '');
}

/**
 * Reads the multipart body of `POST /ui/interface` (spec-notes §7 "UI and tools": "the body is
 * multipart"): fields `title` and `nameservers`, file `logo` (at most 1 MB, spec-notes §9). A field left
 * out is unchanged.
 * @throws ApiError ERR_VALIDATION: not multipart, a file over 1 MB ("File size exceeds maximum of
 *   1mb."), or a field's own message (title over 200 characters, a bad nameserver)
 */
async function readInterfaceForm(request: FastifyRequest): Promise<InterfaceForm> {
  if (!request.isMultipart()) {
    throw new ApiError('ERR_VALIDATION', 'The body must be multipart/form-data.', { logo: Messages.required });
  }
  let title: string | undefined;
  const nameservers: string[] = [];
  let sawNameservers = false;
  let logo: Buffer | null = null;
  try {
    for await (const part of request.parts()) {
      if (part.type === 'file') {
        const bytes = await part.toBuffer();
        if (part.fieldname === 'logo' && bytes.length > 0) logo = bytes;
      } else if (part.fieldname === 'title') {
        title = String(part.value);
      } else if (part.fieldname === 'nameservers') {
        sawNameservers = true;
        nameservers.push(String(part.value));
      }
    }
  } catch (e) {
    if ((e as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') {
      throw new ApiError('ERR_VALIDATION', Messages.fileTooLarge, { logo: Messages.fileTooLarge });
    }
    throw e;
  }
  const parsed = uiInterfaceFieldsSchema.safeParse({
    ...(title === undefined ? {} : { title }),
    ...(sawNameservers ? { nameservers: splitNameservers(nameservers) } : {}),
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = String(issue?.path[0] ?? 'title');
    const message = issue?.message ?? Messages.required;
    throw new ApiError('ERR_VALIDATION', message, { [field]: message });
  }
  return { fields: parsed.data, logo };
}

/**
 * Interface branding and support routes (spec-notes §7 "UI and tools"), from `Endpoints.ui`. The
 * multipart `POST /ui/interface` takes uploads in its own scope only. Scope `owned`: the level
 * comes from `msp_id` or the caller, checked visible by core in SQL.
 */
export async function registerUiRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const e = Endpoints.ui;
  await app.register(async (scoped) => {
    await acceptUploads(scoped);
    registerEndpoint(scoped, e.setInterface, async ({ caller, query, request }) => {
      await branding.checkInterfaceLevel(deps, caller, query); // a foreign MSP is 404 before the upload is read
      const form = await readInterfaceForm(request);
      return branding.setInterface(deps, caller, query, form.fields, form.logo);
    });
  });
  registerEndpoint(app, e.getInterface, ({ caller, query }) => branding.getInterface(deps, caller, query));
  registerEndpoint(app, e.removeLogo, ({ caller, query }) => branding.deleteInterfaceLogo(deps, caller, query));
  registerEndpoint(app, e.removeTitle, ({ caller, query }) => branding.deleteInterfaceTitle(deps, caller, query));
  registerEndpoint(app, e.getSupport, ({ caller, query }) => branding.getSupport(deps, caller, query));
  registerEndpoint(app, e.setSupport, ({ caller, query, body }) => branding.setSupport(deps, caller, query, body));
}
