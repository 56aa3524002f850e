import { describe, expect, it } from 'vitest';
import { prepareScheduledReport, scheduledReportFormErrors, splitRecipients } from './scheduledForm.ts';

const values = (recipients: string) => ({ name: 'Weekly', type: 'r_blocked_domain', frequency: 'weekly', recipients });

describe('the scheduled-report form', () => {
  it('splits the recipients on commas, semicolons and white space', () => {
    expect(splitRecipients(' a@x.test, b@x.test;c@x.test\nd@x.test ,, ')).toEqual([
      'a@x.test',
      'b@x.test',
      'c@x.test',
      'd@x.test',
    ]);
    expect(prepareScheduledReport({ ...values(''), type: '', frequency: '' })).toEqual({
      name: 'Weekly',
      type: undefined,
      frequency: undefined,
      recipients: [],
    });
  });

  it("shows a bad address's message on the recipients field, naming the address", () => {
    const errors = scheduledReportFormErrors(
      { 'recipients.1': 'Must be valid email address.', 'recipients.2': 'Must be valid email address.' },
      values('boss@x.test, not-an-address, nope'),
    );
    expect(errors).toEqual({ recipients: 'not-an-address: Must be valid email address.' });
  });

  it('keeps the other fields and a message about the whole list as they are', () => {
    const errors = scheduledReportFormErrors(
      { name: 'This is a required field.', recipients: 'At least one recipient is required.' },
      values(''),
    );
    expect(errors).toEqual({ name: 'This is a required field.', recipients: 'At least one recipient is required.' });
  });
});
