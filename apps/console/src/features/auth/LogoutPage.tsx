import { Center, Loader } from '@mantine/core';
import { useEffect } from 'react';
import { useNavigate } from 'react-router';
import { useLogoutMutation } from './api.ts';

/** `/logout` (spec-notes §2 "Other: logout"): revokes the token, clears local storage, returns to `/`. */
export function LogoutPage() {
  const { mutate } = useLogoutMutation();
  const navigate = useNavigate();
  useEffect(() => {
    mutate(undefined, { onSettled: () => void navigate('/', { replace: true }) });
  }, [mutate, navigate]);
  return (
    <Center mih="100vh">
      <Loader />
    </Center>
  );
}
