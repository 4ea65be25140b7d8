/** memleak's version: what --version prints and what a recording's header says wrote it (package.json's "version"). */
export const VERSION = "0.1.0";
