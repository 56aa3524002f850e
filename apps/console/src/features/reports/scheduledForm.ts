import type { FormErrors } from '@mantine/form';

/** The scheduled-report form's values (spec-notes §3 "Scheduled report"). */
export interface ScheduledReportValues {
  name: string;
  type: string;
  frequency: string;
  /** Comma- or line-separated addresses. */
  recipients: string;
}

/** The addresses typed in the recipients field: split on commas, semicolons and white space. */
export function splitRecipients(text: string): string[] {
  return text
    .split(/[\s,;]+/)
    .map((s) => s.trim())
    .filter(Boolean);
}

/** Form values → the body `scheduledReportCreateSchema` parses (an empty select left out). */
export function prepareScheduledReport(v: ScheduledReportValues) {
  return {
    name: v.name,
    type: v.type || undefined,
    frequency: v.frequency || undefined,
    recipients: splitRecipients(v.recipients),
  };
}

/**
 * Puts the schema's message about one address (`recipients.2`) on the one recipients field, naming
 * the address: the field is a single text box, so a message keyed by the list item would show
 * nowhere and the form would refuse to send without saying why.
 */
export function scheduledReportFormErrors(errors: FormErrors, values: ScheduledReportValues): FormErrors {
  const out: FormErrors = {};
  const addresses = splitRecipients(values.recipients);
  for (const [key, message] of Object.entries(errors)) {
    const item = /^recipients\.(\d+)$/.exec(key);
    if (!item) {
      out[key] ??= message;
      continue;
    }
    const address = addresses[Number(item[1])];
    out.recipients ??= address === undefined ? message : `${address}: ${String(message)}`;
  }
  return out;
}
