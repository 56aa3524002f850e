/** Interface branding and support contacts (spec §7 "UI and tools": `/ui/interface`, `/ui/support`). */
export {
  checkInterfaceLevel,
  deleteInterfaceLogo,
  deleteInterfaceTitle,
  getInterface,
  getSupport,
  setInterface,
  setSupport,
} from './service.ts';
