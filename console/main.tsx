/** main: the console's entry — TanStack Query's client and the router under /console. */
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { Router } from "wouter";
import { ApiFailure } from "./api/client";
import { App } from "./App";
import { guardedNavigation } from "./components/leave-guard";

const client = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 5_000,
      // A 4xx will not change by asking again; a network blip or a 5xx may.
      retry: (count, error) => count < 2 && !(error instanceof ApiFailure && error.status < 500),
    },
  },
});

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <QueryClientProvider client={client}>
      <Router base="/console" aroundNav={guardedNavigation}>
        <App />
      </Router>
    </QueryClientProvider>
  </StrictMode>,
);
