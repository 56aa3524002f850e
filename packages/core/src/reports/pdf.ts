import { Constants, type Report } from '@cordon/shared';

/** What the PDF shows besides the reports: the tenant's branding and whose reports they are. */
export interface PdfBranding {
  /** The interface title of the MSP (else the system's), or the product name. */
  title: string;
  /** A PNG or JPEG logo, or null. */
  logo: Uint8Array | null;
  /** The customer's account name. */
  customerName: string;
}

/** The English title of a report code: `r_blocked_category` → "Blocked requests by category". */
export function reportTitle(r: Pick<Report, 'type' | 'dimension'>): string {
  const dim = r.dimension.replace(/^(malware|phishing)_/, '').replace('sourceip', 'source IP');
  switch (r.type) {
    case 'behaviour':
      return `Requests by ${dim}`;
    case 'blocked':
      return `Blocked requests by ${dim === 'url' ? 'URL' : dim}`;
    case 'trend':
      return `Traffic trend per ${dim}`;
    default:
      return `${r.dimension.startsWith('malware') ? 'Malware' : 'Phishing'} by ${dim}`;
  }
}

const MARGIN = 48;

/**
 * pdfkit, loaded on a process's first PDF: its fonts and tables cost ≈ 100 ms of CPU to evaluate,
 * which every `cordon serve` start would pay otherwise (docs/contributing.md "Running the tests").
 */
let pdfkit: ReturnType<typeof loadPdfkit> | undefined;
const loadPdfkit = () => import('pdfkit');

/**
 * Renders reports as one PDF (spec-notes §1 "reports: scheduled, one-off PDF"; docs/api.md "Reports"): a
 * header with the logo and title, then per report its title, period and time zone, the total, a bar
 * chart of its first 12 rows (allowed #4BA7EE and blocked #DE3617 stacked, spec-notes §9) and the table of
 * every row. Standard PDF fonts only (Helvetica), A4.
 * @returns the PDF bytes
 */
export async function renderReportPdf(
  branding: PdfBranding,
  reports: readonly Report[],
  generatedAt: Date,
): Promise<Buffer> {
  pdfkit ??= loadPdfkit();
  const { default: PDFDocument } = await pdfkit;
  const doc = new PDFDocument({
    size: 'A4',
    margin: MARGIN,
    info: { Title: `${branding.title} report`, Author: branding.title, CreationDate: generatedAt },
  });
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('data', (c: Buffer) => chunks.push(c));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  const width = doc.page.width - 2 * MARGIN;

  const header = () => {
    let x = MARGIN;
    if (branding.logo) {
      try {
        doc.image(Buffer.from(branding.logo), MARGIN, MARGIN - 8, { fit: [120, 40] });
        x = MARGIN + 130;
      } catch {
        // A logo pdfkit cannot read (GIF, WebP) is left out.
      }
    }
    doc
      .fillColor('#111')
      .font('Helvetica-Bold')
      .fontSize(18)
      .text(branding.title, x, MARGIN, { width: width - (x - MARGIN) });
    doc.font('Helvetica').fontSize(10).fillColor('#555').text(branding.customerName, x, doc.y);
    doc
      .moveTo(MARGIN, MARGIN + 44)
      .lineTo(MARGIN + width, MARGIN + 44)
      .strokeColor('#ccc')
      .stroke();
    doc.y = MARGIN + 56;
    doc.x = MARGIN;
  };

  reports.forEach((report, i) => {
    if (i > 0) doc.addPage();
    header();
    doc.fillColor('#111').font('Helvetica-Bold').fontSize(14).text(reportTitle(report));
    doc
      .font('Helvetica')
      .fontSize(10)
      .fillColor('#333')
      .text(`Period: ${report.start} to ${report.end} (${report.timezone})`)
      .text(`Total requests: ${report.total}`)
      .text(`Generated: ${generatedAt.toISOString()}`);
    doc.moveDown();

    // Chart: stacked horizontal bars of the first rows.
    const chartRows =
      report.type === 'trend' ? report.rows.filter((r) => r.requests > 0).slice(0, 12) : report.rows.slice(0, 12);
    const max = Math.max(1, ...chartRows.map((r) => r.allowed + r.blocked));
    const labelW = 170;
    const barW = width - labelW - 60;
    for (const r of chartRows) {
      const y = doc.y;
      doc
        .fillColor('#333')
        .fontSize(8)
        .text(r.name.length > 40 ? `${r.name.slice(0, 39)}…` : r.name, MARGIN, y, {
          width: labelW - 6,
          lineBreak: false,
        });
      const a = (r.allowed / max) * barW;
      const b = (r.blocked / max) * barW;
      if (a > 0) doc.rect(MARGIN + labelW, y, a, 9).fill(Constants.allowedColour);
      if (b > 0) doc.rect(MARGIN + labelW + a, y, b, 9).fill(Constants.blockedColour);
      doc.fillColor('#333').text(String(r.allowed + r.blocked), MARGIN + labelW + a + b + 4, y, { lineBreak: false });
      doc.x = MARGIN;
      doc.y = y + 13;
    }
    if (chartRows.length > 0) {
      const y = doc.y + 2;
      doc.rect(MARGIN + labelW, y, 8, 8).fill(Constants.allowedColour);
      doc.fillColor('#333').text('Allowed', MARGIN + labelW + 12, y, { lineBreak: false });
      doc.rect(MARGIN + labelW + 70, y, 8, 8).fill(Constants.blockedColour);
      doc.fillColor('#333').text('Blocked', MARGIN + labelW + 82, y, { lineBreak: false });
      doc.x = MARGIN;
      doc.y = y + 18;
    } else {
      doc.fillColor('#555').fontSize(10).text('No queries in this period.');
      doc.moveDown();
    }

    // Table.
    const cols = [
      { title: report.type === 'trend' ? 'Time' : 'Name', w: width - 3 * 80 },
      { title: 'Requests', w: 80 },
      { title: 'Allowed', w: 80 },
      { title: 'Blocked', w: 80 },
    ];
    const row = (cells: string[], bold: boolean) => {
      if (doc.y > doc.page.height - MARGIN - 20) {
        doc.addPage();
        doc.y = MARGIN;
      }
      const y = doc.y;
      let x = MARGIN;
      doc
        .font(bold ? 'Helvetica-Bold' : 'Helvetica')
        .fontSize(9)
        .fillColor('#111');
      cells.forEach((c, k) => {
        doc.text(c, x + 2, y, { width: cols[k]!.w - 4, lineBreak: false, align: k === 0 ? 'left' : 'right' });
        x += cols[k]!.w;
      });
      doc.x = MARGIN;
      doc.y = y + 14;
    };
    row(
      cols.map((c) => c.title),
      true,
    );
    for (const r of report.rows) row([r.name, String(r.requests), String(r.allowed), String(r.blocked)], false);
  });
  if (reports.length === 0) {
    header();
    doc.text('No report.');
  }
  doc.end();
  return done;
}
