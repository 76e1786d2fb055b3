/* SPDX-License-Identifier: MIT */
/* stub: being written */
#include "harness/profile/symbols.h"
