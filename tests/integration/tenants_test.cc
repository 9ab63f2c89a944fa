#include <gtest/gtest.h>

#include "stack.h"
