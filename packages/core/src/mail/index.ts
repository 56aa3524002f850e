/**
 * Mail (spec-notes §3 "Email settings", spec-notes §7 `/mail`): the system's and each MSP's SMTP settings, and
 * the one way core sends mail ({@link sendMail}: invitations, password resets, reports), through
 * nodemailer.
 */
export { type MailAttachment, type MailMessage, mailDeliveries } from './mailer.ts';
export {
  consoleUrl,
  deleteMailSettings,
  getMailSettings,
  MailNotConfiguredError,
  type MailSender,
  mailConfigured,
  sendMail,
  sendTestMail,
  setMailSettings,
} from './service.ts';
