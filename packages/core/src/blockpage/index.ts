/** Block-page branding (spec-notes §7 `/ui/blockpage`): customer, MSP and system texts of the block page. */

export {
  deleteBlockPage,
  deleteBlockPageLogo,
  getBlockPage,
  setBlockPage,
  setBlockPageLogo,
} from './service.ts';
