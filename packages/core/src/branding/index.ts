/** Interface branding and support contacts (spec-notes §7 "UI and tools": `/ui/interface`, `/ui/support`). */

export { interfaceTitle, PRODUCT_TITLE } from './repository.ts';
export {
  checkInterfaceLevel,
  deleteInterfaceLogo,
  deleteInterfaceTitle,
  getInterface,
  getSupport,
  setInterface,
  setSupport,
} from './service.ts';
