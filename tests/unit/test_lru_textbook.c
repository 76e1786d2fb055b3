/* SPDX-License-Identifier: MIT */
#include <criterion/criterion.h>
#include "tests/common/lru_letters.h"
