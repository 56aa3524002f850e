/**
 * Mantine's overlay components in one module, loaded on the first intent to use one
 * (`Deferred.tsx`): Select (combobox, popover, floating-ui, scroll area), Modal (focus trap, scroll
 * lock) and Tooltip, ≈ 40 KB gzip that no page needs to show its content (bench/README.md "Console
 * first load"). One module, so the first intent fetches one chunk and not a dozen small ones.
 */
export { Modal, Select, Tooltip } from '@mantine/core';
