import { defineFeature } from '../../platform/manifest.ts';
import en from './i18n/en.json';

/**
 * Login at `/` (or the role's home once logged in), its two-factor setup page, the invitation and
 * password-reset pages, and `/logout` (spec-notes §2 "Other: index, login two-factor setup, logout").
 */
export const authFeature = defineFeature({
  name: 'auth',
  routes: [
    {
      path: '/',
      area: 'blank',
      titleKey: 'pages.login',
      page: () => import('./RootPage.tsx').then((m) => m.RootPage),
    },
    {
      path: '/login/two-factor-setup',
      area: 'blank',
      titleKey: 'pages.twoFactorSetup',
      page: () => import('./TwoFactorSetupPage.tsx').then((m) => m.TwoFactorSetupPage),
    },
    {
      path: '/register',
      area: 'blank',
      titleKey: 'pages.register',
      page: () => import('./PasswordPages.tsx').then((m) => m.RegisterPage),
    },
    {
      path: '/forgot-password',
      area: 'blank',
      titleKey: 'pages.forgotPassword',
      page: () => import('./PasswordPages.tsx').then((m) => m.ForgotPasswordPage),
    },
    {
      path: '/reset-password',
      area: 'blank',
      titleKey: 'pages.resetPassword',
      page: () => import('./PasswordPages.tsx').then((m) => m.ResetPasswordPage),
    },
    {
      path: '/logout',
      area: 'none',
      titleKey: 'pages.logout',
      page: () => import('./LogoutPage.tsx').then((m) => m.LogoutPage),
    },
  ],
  messages: { en },
  translations: { fr: () => import('./i18n/fr.json') },
});
